/**
 * The `leadline` command as built (`npm run build`): `npm start` runs `node dist/src/cli/bin.js serve`,
 * plain JavaScript with no TypeScript loader in any thread. `./bin/leadline.js` runs the sources.
 */
import { fileURLToPath } from 'node:url'
import { runBounded } from './batch-heap.ts'
import { runCli } from './main.ts'
import { loadDotEnv } from '../config/dotenv.ts'

// ./.env, when there is one: the environment wins over it (docs/configuration.md).
loadDotEnv()
const args = process.argv.slice(2)
// A batch command (replay) starts again under its heap bound.
process.exitCode = runBounded(fileURLToPath(import.meta.url), args) ?? (await runCli(args))
