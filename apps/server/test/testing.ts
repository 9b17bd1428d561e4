/**
 * `@yfs/server/testing`: the server test harness for the apps built on the
 * server (apps/cli's tests): a real server on port 0 (helpers.ts), the
 * optional PostgreSQL and Redis services (services.ts), raw and real MCP
 * requests (raw-mcp.ts, agent-works.ts).
 */
export { agentWorks } from './agent-works.js'
export {
  ADMIN_TOKEN,
  createTestClient,
  startTestServer,
  synced,
  type TestClient,
  type TestServer,
  waitFor,
} from './helpers.js'
export { type RawResponse, rawMcp } from './raw-mcp.js'
export {
  dropSchema,
  POSTGRES_URL,
  postgresAvailable,
  REDIS_URL,
  redisAvailable,
  testSchema,
} from './services.js'
