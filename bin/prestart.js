#!/usr/bin/env node
// `npm start`'s first step (package.json `prestart`): build only when a source changed since the last
// build, and refuse a bad setting before building (docs/configuration.md). Plain JavaScript: it runs
// before there is anything built.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
/** What the build reads: a change to any of them (a directory's time covers a deleted file) needs a build. */
const INPUTS = ['src', 'projections', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json']
/** Written by every build (tsc emits it), so its time is the last build's. */
const BUILT = path.join(root, 'dist', 'src', 'cli', 'bin.js')

function newest(file) {
  let stat
  try {
    stat = fs.statSync(file)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = stat.mtimeMs
  for (const entry of fs.readdirSync(file)) latest = Math.max(latest, newest(path.join(file, entry)))
  return latest
}

function builtAt() {
  try {
    return fs.statSync(BUILT).mtimeMs
  } catch {
    return 0
  }
}

const stale = builtAt() === 0 || INPUTS.some((input) => newest(path.join(root, input)) > builtAt())
if (!stale) process.exit(0)

// Checked from the sources first: a bad setting is refused in a second or two, not after the build.
const checked = spawnSync(process.execPath, [path.join(root, 'bin', 'leadline.js'), 'config', '--check'], { stdio: 'inherit' })
if (checked.status !== 0) process.exit(checked.status ?? 1)
process.stderr.write('leadline: sources changed since the last build: building (npm run build)\n')
const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' })
process.exit(built.status ?? 1)
