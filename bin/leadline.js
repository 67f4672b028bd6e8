#!/usr/bin/env node
// The leadline command. Runs the TypeScript sources directly through tsx's loader.
import { register } from 'tsx/esm/api'

register()
const { runCli } = await import('../src/cli/main.ts')
process.exitCode = await runCli(process.argv.slice(2))
