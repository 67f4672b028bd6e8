// Entry of the replay's reader thread when running from the sources. In Node 20 a worker thread
// does not get the main thread's tsx loader, so this plain module registers tsx before it loads the
// TypeScript reader (the build runs the compiled log-reader.worker.js directly).
import { register } from 'tsx/esm/api'

register()
await import('./log-reader.worker.ts')
