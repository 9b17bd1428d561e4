/**
 * The `yfs` config file: defaults for `--server`, `--token`, `--workspace` and `--data`, so a
 * person need not repeat them (or put a token in the shell history).
 *
 *   $XDG_CONFIG_HOME/yfs/config.json   (default ~/.config/yfs/config.json; absent: no defaults)
 *   --config <file> or YFS_CONFIG      (another file; it must exist)
 *
 *   {"server": "ws://127.0.0.1:4321", "token": "yfs_…", "workspace": "team", "data": "./.yfs"}
 *
 * Precedence: flags > environment (YFS_SERVER, YFS_TOKEN, YFS_WORKSPACE, YFS_DATA) > the file.
 * The values are commander's `config` source, which flags and environment variables override.
 * Which store a command uses is picked as a whole: a `--server` from the flags or environment
 * drops the file's `data`; a `--data` or `--postgres` from them drops the file's `server` and
 * `token` (so a file naming a server never collides with a `--data` typed for one command); a
 * file naming both uses the server where a command takes both. `YFS_DATA` applies also to the
 * commands whose `--data` flag has no variable of its own (the workspace commands).
 *
 * A malformed file (not JSON, not an object, an unknown key, a value not a string) is an error
 * naming the file. A file with a token that others may read (mode & 0o077) gets a warning.
 */
import { readFileSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { Command } from 'commander'

export const CONFIG_KEYS = ['server', 'token', 'workspace', 'data'] as const
export type ConfigKey = (typeof CONFIG_KEYS)[number]
export type ConfigValues = Partial<Record<ConfigKey, string>>

const ENV: Record<ConfigKey, string> = {
  server: 'YFS_SERVER',
  token: 'YFS_TOKEN',
  workspace: 'YFS_WORKSPACE',
  data: 'YFS_DATA',
}

/** The default config file: `$XDG_CONFIG_HOME/yfs/config.json`, else `~/.config/yfs/config.json`. */
export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config')
  return join(base, 'yfs', 'config.json')
}

/** A config file that cannot be used; the message names the file. */
export class ConfigFileError extends Error {
  constructor(file: string, why: string) {
    super(`config file ${file}: ${why}`)
    this.name = 'ConfigFileError'
  }
}

/**
 * Read a config file. `undefined` when `explicit` is false and the file does not exist;
 * throws ConfigFileError when it is malformed (or missing while `explicit`).
 */
export function readConfigFile(
  file: string,
  explicit: boolean,
  warn: (message: string) => void = (m) => process.stderr.write(`yfs: warning: ${m}\n`),
): ConfigValues | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' && !explicit) return undefined
    throw new ConfigFileError(file, `cannot be read (${code ?? (error as Error).message})`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new ConfigFileError(file, `not valid JSON (${(error as Error).message})`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigFileError(file, 'must be a JSON object')
  }
  const out: ConfigValues = {}
  for (const [key, v] of Object.entries(value)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
      throw new ConfigFileError(file, `unknown key ${JSON.stringify(key)} (known: ${CONFIG_KEYS.join(', ')})`)
    }
    if (typeof v !== 'string' || v === '')
      throw new ConfigFileError(file, `"${key}" must be a non-empty string`)
    out[key as ConfigKey] = v
  }
  if (out.token !== undefined && (statSync(file).mode & 0o077) !== 0) {
    warn(`${file} holds a token and others may read it: chmod 600 ${file}`)
  }
  return out
}

/** Whether `argv` names the option `--name` (as `--name v` or `--name=v`). */
const named = (argv: readonly string[], name: string) =>
  argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`))

/** The value of `--config` in `argv`, if any. */
function configFlag(argv: readonly string[]): string | undefined {
  for (const [i, a] of argv.entries()) {
    if (a === '--config') return argv[i + 1]
    if (a.startsWith('--config=')) return a.slice('--config='.length)
  }
  return undefined
}

/**
 * The config values that apply to a command line: the file's, minus what the flags or the
 * environment make moot (the other kind of store).
 */
export function configFor(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ConfigValues {
  const explicit = configFlag(argv) ?? env.YFS_CONFIG
  const values = readConfigFile(explicit ?? defaultConfigPath(env), explicit !== undefined) ?? {}
  const given = (name: string, variable: string) => named(argv, name) || Boolean(env[variable])
  // YFS_DATA for the commands whose --data has no environment variable of its own (it would
  // collide with --server in commander's conflict check).
  if (env[ENV.data] && !given('server', ENV.server)) values.data = env[ENV.data]
  if (given('server', ENV.server)) delete values.data
  if (given('data', ENV.data) || given('postgres', 'YFS_POSTGRES_URL')) {
    delete values.server
    delete values.token
  }
  if (given('postgres', 'YFS_POSTGRES_URL')) delete values.data
  return values
}

/**
 * A `preSubcommand` hook for the program: before `command` (and its subcommands) parse their
 * options, set the config file's values as their `config` source, which flags and environment
 * variables then override.
 */
export function applyConfigFile(program: Command, command: Command): void {
  // commander keeps the parsed argv (node, script, ...) without typing it.
  const argv = (program as unknown as { rawArgs: string[] }).rawArgs
  const values = configFor(argv.slice(2))
  const walk = (c: Command) => {
    const keys = new Set(c.options.map((o) => o.attributeName()))
    for (const key of CONFIG_KEYS) {
      const value = values[key]
      if (value === undefined || !keys.has(key)) continue
      // A file with both a server and a data folder: the server, where a command takes both.
      if (key === 'data' && keys.has('server') && values.server !== undefined) continue
      c.setOptionValueWithSource(key, value, 'config')
    }
    for (const sub of c.commands) walk(sub)
  }
  walk(command)
}

/** The config file, for `yfs --help` and docs/cli.md. */
export const CONFIG_FILE_DOC = `Config file: defaults for --server, --token, --workspace and --data of every command that takes
them, from --config <file> (or YFS_CONFIG), else $XDG_CONFIG_HOME/yfs/config.json (default
~/.config/yfs/config.json; no file, no defaults). Flags win over the environment (YFS_SERVER,
YFS_TOKEN, YFS_WORKSPACE, YFS_DATA), which wins over the file. A --server (flag or environment)
drops the file's data folder, a --data or --postgres its server and token. A malformed file is an
error naming it; a file holding a token that others may read is warned about (chmod 600 it).

  {"server": "ws://127.0.0.1:4321", "token": "yfs_…", "workspace": "team"}`
