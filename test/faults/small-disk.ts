/**
 * A real, small filesystem for the disk-full tests: a size-limited tmpfs mounted in a temporary
 * directory (needs CAP_SYS_ADMIN, as root in a container has). `fill()` takes every free byte with a
 * filler file, so SQLite's next write fails with ENOSPC exactly as on a full disk; `free()` gives the
 * space back. Where mounting is not allowed, `smallDisk` answers null and the tests fall back to
 * `PRAGMA max_page_count` (see disk-full.test.ts).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'

export interface SmallDisk {
  readonly dir: string
  /** Writes a filler file until the filesystem says ENOSPC; returns the bytes it took. */
  fill(): number
  /** Deletes the filler: the space returns. */
  free(): void
  /** Remounts read-only (only possible while no file on it is open for writing). */
  readOnly(): void
  readWrite(): void
}

const CHUNK = Buffer.alloc(64 * 1024, 0x5a)

export function smallDisk(t: Pick<Test, 'teardown'>, sizeKb: number): SmallDisk | null {
  if (process.platform !== 'linux') return null
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-small-disk-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0777`, 'tmpfs', dir], { stdio: 'ignore' })
  } catch {
    fs.rmSync(dir, { recursive: true, force: true })
    return null
  }
  t.teardown(() => {
    // Lazy: a child that was killed may still be on its way out.
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' })
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const filler = path.join(dir, 'filler.bin')
  return {
    dir,
    fill() {
      const fd = fs.openSync(filler, 'a')
      let written = 0
      try {
        for (;;) {
          try {
            written += fs.writeSync(fd, CHUNK)
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
            // Take the last partial chunk's worth too, a byte at a time is not needed: 4 KB pages.
            for (;;) {
              try {
                written += fs.writeSync(fd, CHUNK.subarray(0, 4096))
              } catch {
                return written
              }
            }
          }
        }
      } finally {
        fs.closeSync(fd)
      }
    },
    free() {
      fs.rmSync(filler, { force: true })
    },
    readOnly() {
      execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'ignore' })
    },
    readWrite() {
      execFileSync('mount', ['-o', 'remount,rw', dir], { stdio: 'ignore' })
    },
  }
}
