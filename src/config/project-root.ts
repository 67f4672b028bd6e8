/**
 * Where the files that are not code live (package.json, docs/, the console's assets), whether the
 * code runs from its sources (`src/…` through tsx: tests, `./bin/leadline.js`) or from their build
 * (`dist/src/…`: `npm start`, see docs/deployment.md). The build holds only compiled code, so both
 * read the same docs and assets from the checkout.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The folder `npm run build` compiles into (tsconfig.build.json's outDir). */
export const BUILD_DIR = 'dist'

/** True when this process runs the compiled build rather than the TypeScript sources. */
export const RUNNING_BUILD = import.meta.url.endsWith('.js')

// This file is src/config/project-root.ts, or dist/src/config/project-root.js in the build.
const above = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

export const PROJECT_ROOT = RUNNING_BUILD && path.basename(above) === BUILD_DIR ? path.dirname(above) : above

/** A path under the project root. */
export function projectPath(...segments: string[]): string {
  return path.join(PROJECT_ROOT, ...segments)
}
