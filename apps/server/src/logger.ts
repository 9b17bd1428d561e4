/**
 * Structured logs: one JSON object per line (`ts`, `level`, `event`, fields).
 * Nothing else in the server writes to stdout; error objects are reduced to
 * their message (no stack traces in logs clients could trigger).
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

export type LogFields = Record<string, unknown>

export interface Logger {
  debug(event: string, fields?: LogFields): void
  info(event: string, fields?: LogFields): void
  warn(event: string, fields?: LogFields): void
  error(event: string, fields?: LogFields): void
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export interface LoggerOptions {
  /** Lowest level written. Default `info`. */
  level?: LogLevel
  /** Where lines go. Default `process.stdout`. */
  write?: (line: string) => void
}

function plain(value: unknown): unknown {
  if (value instanceof Error) return value.message
  if (typeof value === 'bigint') return value.toString()
  return value
}

/** A JSON-lines logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const min = ORDER[options.level ?? 'info']
  const write = options.write ?? ((line: string) => process.stdout.write(line))
  const log =
    (level: LogLevel) =>
    (event: string, fields: LogFields = {}) => {
      if (ORDER[level] < min) return
      const record: LogFields = { ts: new Date().toISOString(), level, event }
      for (const [key, value] of Object.entries(fields)) record[key] = plain(value)
      write(`${JSON.stringify(record)}\n`)
    }
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
}
