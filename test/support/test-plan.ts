// Which test files share a process and which have one of their own. Starting a test process and loading
// the app costs every file several seconds, more than most files' own tests: `npm test` runs the files
// that can share in a few shard processes (`test/support/shards/`), and the rest one process each.
// Run as a script, it prints the files `npm test` hands tap: the shards, then the files of their own.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** How many shard processes `npm test` runs (two at a time, beside the files of their own). */
export const SHARDS = 6

/**
 * Files that need a process of their own: they start the built server or the CLI as child processes
 * (and share nothing a shard would save), kill or crash processes, fill a disk, measure the process's
 * heap, read what the process printed, or check what the process has not loaded yet.
 */
const OWN_PROCESS: readonly RegExp[] = [
  /^test\/(cli|build|faults|multi-node)\//,
  /^test\/docs\/(docs-coverage|docs-routes|events-snippets|example-runner|examples|readme-quick-start)\.test\.ts$/,
  /^test\/audit\/(export|read-only)\.test\.ts$/,
  /^test\/eventstore\/(esdb-event-store|sqlite-event-store|sqlite-writer-thread-contract)\.test\.ts$/,
  /^test\/http\/(crash|upload-over-limit)\.test\.ts$/,
  /^test\/http\/mcp\/heap-bound\.test\.ts$/,
  /^test\/processes\/dialer\/restart\.test\.ts$/,
  /^test\/security\/secrets-in-logs\.test\.ts$/,
  /^test\/integrations\/carrier\/twilio-warm\.test\.ts$/,
  /^test\/integrations\/lazy-adapters\.test\.ts$/,
  /^test\/docs\/oauth-laptop\.test\.ts$/,
]

/** Every `*.test.ts` under `dir`, sorted, paths relative to the repository with `/`. */
export function testFilesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const file = path.posix.join(dir, entry.name)
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFilesUnder(file)
      return file.endsWith('.test.ts') ? [file] : []
    })
    .sort()
}

/** `npm run test:unit`'s files: domain, command, process, tool and projection tests, less those that start a child process or open the store's files. */
const UNIT_FOLDERS = ['test/domain', 'test/commands', 'test/processes', 'test/http/mcp', 'test/projections']
const UNIT_EXTRA = ['test/eventstore/memory-event-store.test.ts', 'test/eventstore/hash-chain.test.ts']
const ON_FILES: readonly RegExp[] = [
  /^test\/processes\/process-runner\.test\.ts$/, /^test\/processes\/dialer\/restart[^/]*\.test\.ts$/, /^test\/processes\/dialer\/speed-to-lead\.test\.ts$/,
  /^test\/processes\/texter\/texter\.test\.ts$/, /^test\/processes\/follow-up\/text-step-restart\.test\.ts$/, /^test\/http\/mcp\/heap-bound\.test\.ts$/,
  /^test\/commands\/accounts-authentication\.test\.ts$/, /^test\/http\/mcp\/idempotency\.test\.ts$/,
]

export function unitTestFiles(): string[] {
  return [...UNIT_FOLDERS.flatMap(testFilesUnder), ...UNIT_EXTRA].filter((file) => !ON_FILES.some((pattern) => pattern.test(file))).sort()
}

export function ownProcessFiles(): string[] {
  return testFilesUnder('test').filter((file) => OWN_PROCESS.some((pattern) => pattern.test(file)))
}

export function sharedFiles(): string[] {
  return testFilesUnder('test').filter((file) => !OWN_PROCESS.some((pattern) => pattern.test(file)))
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const shards = Array.from({ length: SHARDS }, (_, index) => `test/support/shards/shard-${index + 1}.ts`)
  console.log([...shards, ...ownProcessFiles()].join('\n'))
}
