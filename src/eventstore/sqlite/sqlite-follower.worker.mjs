// Entry of a store's follower thread, from the sources: like sqlite-writer.worker.mjs, it registers
// tsx (which a worker thread does not inherit in Node 20) before it loads the TypeScript follower.
import { register } from 'tsx/esm/api'

register()
await import('./sqlite-follower.worker.ts')
