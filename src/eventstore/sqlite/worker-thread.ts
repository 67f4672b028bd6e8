/**
 * Starts one of this module's worker programs (`*.worker.ts`). The build runs the compiled `.js`
 * as it is. From the sources, a Node 20 worker thread inherits neither tsx's loader nor an
 * `--import tsx` in its execArgv, so the thread registers tsx itself before it imports the program.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads'

const FROM_SOURCES = import.meta.url.endsWith('.ts')

/** `name` is the program's file name without its extension, beside this module. */
export function startWorker(name: string, options: WorkerOptions = {}): Worker {
  const program = new URL(`./${name}${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url)
  if (!FROM_SOURCES) return new Worker(program, options)
  const tsx = import.meta.resolve('tsx/esm/api')
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(program.href)}) })`
  return new Worker(bootstrap, { ...options, eval: true })
}
