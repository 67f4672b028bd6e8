#!/usr/bin/env node
// The leadline command. Runs the TypeScript sources directly through tsx's loader.
import { fileURLToPath } from 'node:url'
import { register } from 'tsx/esm/api'

register()
const args = process.argv.slice(2)
// ./.env, when there is one: the environment wins over it (docs/configuration.md).
const { loadDotEnv } = await import('../src/config/dotenv.ts')
loadDotEnv()
// A batch command (replay) starts again under its heap bound (src/cli/batch-heap.ts).
const { runBounded } = await import('../src/cli/batch-heap.ts')
const bounded = runBounded(fileURLToPath(import.meta.url), args)
if (bounded !== null) {
  process.exitCode = bounded
} else {
  const { runCli } = await import('../src/cli/main.ts')
  process.exitCode = await runCli(args)
}
