// The files `npm run test:unit` runs: domain, command, process, tool and projection tests, less those
// that start a child process or open the store's files (tap's --exclude does not filter named files).
import fs from 'node:fs'
import path from 'node:path'

const FOLDERS = ['test/domain', 'test/commands', 'test/processes', 'test/http/mcp', 'test/projections']
const EXTRA = ['test/eventstore/memory-event-store.test.ts', 'test/eventstore/hash-chain.test.ts']
const ON_FILES = [/^test\/processes\/process-runner\.test\.ts$/, /^test\/processes\/dialer\/restart[^/]*\.test\.ts$/, /^test\/processes\/dialer\/speed-to-lead\.test\.ts$/, /^test\/processes\/texter\/texter\.test\.ts$/, /^test\/processes\/follow-up\/text-step-restart\.test\.ts$/, /^test\/http\/mcp\/heap-bound\.test\.ts$/, /^test\/commands\/accounts-authentication\.test\.ts$/, /^test\/http\/mcp\/idempotency\.test\.ts$/]

function tests(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name)
    if (entry.isDirectory()) return tests(file)
    return file.endsWith('.test.ts') ? [file] : []
  })
}

export function unitTestFiles(): string[] {
  return [...FOLDERS.flatMap(tests), ...EXTRA].filter((file) => !ON_FILES.some((pattern) => pattern.test(file))).sort()
}
