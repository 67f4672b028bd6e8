// Which test files run where. `npm test` runs the in-process tests: every `test/**/*.test.ts` not named
// below joins one of a few shard processes (`test/support/shards/`) by itself, because starting a test
// process and loading the app costs a file more than most files' own tests. `npm run test:integration`
// runs the files that need processes, one process each, against the build (`npm run build`).
// Run as a script, it prints the files tap runs: `npm test`'s, or with `--integration` the other ones.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** How many shard processes `npm test` runs, two at a time. */
export const SHARDS = 4

/**
 * `npm run test:integration`: files that start the built server or the CLI as child processes, kill or
 * crash processes, run several nodes, build, fill a disk or measure a process's heap. A new such file
 * goes under `test/integration/` or is named `*.integration.test.ts`; the older ones are listed here.
 */
const INTEGRATION: readonly RegExp[] = [
  /^test\/integration\//,
  /\.integration\.test\.ts$/,
  /^test\/(build|faults|multi-node)\//,
  /^test\/cli\/(audit-replay-server|backup-restore|client|client-text|client-writes|config-env|demo|operator-cli|restore-queued-calls|server-url|source-facebook)\.test\.ts$/,
  /^test\/docs\/(events-snippets|oauth-laptop|readme-quick-start)\.test\.ts$/,
  /^test\/audit\/(export|read-only)\.test\.ts$/,
  /^test\/eventstore\/(esdb-event-store|sqlite-event-store|sqlite-writer-thread-contract)\.test\.ts$/,
  /^test\/http\/(crash|upload-over-limit)\.test\.ts$/,
  /^test\/http\/mcp\/heap-bound\.test\.ts$/,
  /^test\/processes\/dialer\/restart(-backlog)?\.test\.ts$/,
  /^test\/security\/secrets-in-logs\.test\.ts$/,
]

/** In `npm test`, but each in a fresh process of its own: they check which modules a process has not loaded yet. */
const OWN_PROCESS: readonly RegExp[] = [
  /^test\/integrations\/carrier\/twilio-warm\.test\.ts$/,
  /^test\/integrations\/lazy-adapters\.test\.ts$/,
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

const matches = (patterns: readonly RegExp[]) => (file: string) => patterns.some((pattern) => pattern.test(file))

/** `npm run test:unit`'s files: domain, command, process, tool and projection tests, less those that start a child process or open the store's files. */
const UNIT_FOLDERS = ['test/domain', 'test/commands', 'test/processes', 'test/http/mcp', 'test/projections']
const UNIT_EXTRA = ['test/eventstore/memory-event-store.test.ts', 'test/eventstore/hash-chain.test.ts']
const ON_FILES: readonly RegExp[] = [
  /^test\/processes\/process-runner\.test\.ts$/, /^test\/processes\/dialer\/restart[^/]*\.test\.ts$/, /^test\/processes\/dialer\/speed-to-lead\.test\.ts$/,
  /^test\/processes\/texter\/texter\.test\.ts$/, /^test\/processes\/follow-up\/text-step-restart\.test\.ts$/, /^test\/http\/mcp\/heap-bound\.test\.ts$/,
  /^test\/commands\/accounts-authentication\.test\.ts$/, /^test\/http\/mcp\/idempotency\.test\.ts$/,
]

export function unitTestFiles(): string[] {
  return [...UNIT_FOLDERS.flatMap(testFilesUnder), ...UNIT_EXTRA].filter((file) => !matches(ON_FILES)(file)).sort()
}

/** Builds `dist/` (`npm run build`) and runs it: `npm run test:integration` runs it alone, before the files that run the build. */
export const BUILD_TEST = 'test/build/build.test.ts'

/** `npm run test:integration`'s files, after BUILD_TEST. */
export function integrationFiles(): string[] {
  return testFilesUnder('test').filter((file) => matches(INTEGRATION)(file) && file !== BUILD_TEST)
}

/** `npm test`'s files that run in a process of their own. */
export function ownProcessFiles(): string[] {
  return testFilesUnder('test').filter((file) => matches(OWN_PROCESS)(file) && !matches(INTEGRATION)(file))
}

/** `npm test`'s files that share the shard processes: every test file not named above. */
export function sharedFiles(): string[] {
  return testFilesUnder('test').filter((file) => !matches(INTEGRATION)(file) && !matches(OWN_PROCESS)(file))
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--integration')) {
    console.log(integrationFiles().join('\n'))
  } else {
    const shards = Array.from({ length: SHARDS }, (_, index) => `test/support/shards/shard-${index + 1}.ts`)
    console.log([...shards, ...ownProcessFiles()].join('\n'))
  }
}
