// Entry of the event store's writer thread. In Node 20 a worker thread does not get the main
// thread's tsx loader (neither `register()` nor `--import tsx` reach it), so this plain module
// registers tsx before it loads the TypeScript writer.
import { register } from 'tsx/esm/api'

register()
await import('./sqlite-writer.worker.ts')
