#!/usr/bin/env node
// The `yfs` command: runs the TypeScript entry point through tsx (packages ship sources).
import { tsImport } from 'tsx/esm/api'

await tsImport('../src/main.ts', import.meta.url)
