/**
 * `./.env`, read by `npm start` and every `leadline` command with Node's own loader: a variable
 * already in the environment wins over the file. `leadline config` asks where each value came from.
 */
import fs from 'node:fs'
import path from 'node:path'
import { parseEnv } from 'node:util'

export const DOTENV_FILE = '.env'

/** Loads ./.env into process.env when it exists (the environment wins); returns the file's path, or null. */
export function loadDotEnv(dir = process.cwd()): string | null {
  const file = path.join(dir, DOTENV_FILE)
  if (!fs.existsSync(file)) return null
  process.loadEnvFile(file)
  return file
}

/** The variables ./.env holds, as Node's loader reads them; empty when there is no file. */
export function dotEnvValues(dir = process.cwd()): Record<string, string> {
  try {
    return parseEnv(fs.readFileSync(path.join(dir, DOTENV_FILE), 'utf8')) as Record<string, string>
  } catch {
    return {}
  }
}
