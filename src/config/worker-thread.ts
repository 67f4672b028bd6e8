/**
 * Starts one of our worker programs (a `*.worker.ts` file). The build runs the compiled `.js` as it
 * is. From the sources, a Node 20 worker thread inherits neither tsx's loader nor an `--import tsx`
 * in its execArgv, so the thread registers tsx itself before it imports the program.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Worker, type WorkerOptions } from 'node:worker_threads'

const FROM_SOURCES = import.meta.url.endsWith('.ts')
// tsx's ESM API, found through its package.json by CommonJS's resolver, which never asks the loader
// thread: Node 20's synchronous import.meta.resolve waited forever on that thread, at a call and as
// this module loaded, while an import() was in flight (seen twice in test processes).
const TSX_API = FROM_SOURCES ? tsxEsmApi() : null

function tsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json')
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: { './esm/api': { import: { default: string } } } }
  return new URL(exports['./esm/api'].import.default, pathToFileURL(manifest)).href
}

/** `name` is the program's file name without its extension, in the folder of `beside` (the caller's `import.meta.url`). */
export function startWorker(beside: string, name: string, options: WorkerOptions = {}): Worker {
  const program = new URL(`./${name}${FROM_SOURCES ? '.ts' : '.js'}`, beside)
  if (!FROM_SOURCES) return new Worker(program, options)
  const bootstrap = `import(${JSON.stringify(TSX_API)}).then((api) => { api.register(); return import(${JSON.stringify(program.href)}) })`
  return new Worker(bootstrap, { ...options, eval: true })
}
