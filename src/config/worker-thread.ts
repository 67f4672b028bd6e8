/**
 * Starts one of our worker programs (a `*.worker.ts` file). The build runs the compiled `.js` as it
 * is. From the sources, a Node 20 worker thread inherits neither tsx's loader nor an `--import tsx`
 * in its execArgv, so the thread registers tsx itself before it imports the program.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads'

const FROM_SOURCES = import.meta.url.endsWith('.ts')
// Resolved once, as this module loads: resolved later, while an import() is in flight, Node 20's
// synchronous import.meta.resolve waited forever on the loader thread (seen in a test process).
const TSX_API = FROM_SOURCES ? import.meta.resolve('tsx/esm/api') : null

/** `name` is the program's file name without its extension, in the folder of `beside` (the caller's `import.meta.url`). */
export function startWorker(beside: string, name: string, options: WorkerOptions = {}): Worker {
  const program = new URL(`./${name}${FROM_SOURCES ? '.ts' : '.js'}`, beside)
  if (!FROM_SOURCES) return new Worker(program, options)
  const bootstrap = `import(${JSON.stringify(TSX_API)}).then(({ register }) => { register(); return import(${JSON.stringify(program.href)}) })`
  return new Worker(bootstrap, { ...options, eval: true })
}
