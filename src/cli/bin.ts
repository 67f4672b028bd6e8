/**
 * The `leadline` command as built (`npm run build`): `npm start` runs `node dist/src/cli/bin.js serve`,
 * plain JavaScript with no TypeScript loader in any thread. `./bin/leadline.js` runs the sources.
 */
import { runCli } from './main.ts'

process.exitCode = await runCli(process.argv.slice(2))
