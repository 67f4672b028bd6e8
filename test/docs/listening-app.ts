/**
 * A test app listening on a real port whose public URL is its own address, so `{base_url}` in the
 * docs, in CLI output and in the browser all name the server under test.
 */
import { createServer } from 'node:net'
import { buildApp, type TestApp, type TestTap } from '../helpers/build-app.ts'

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

export async function listeningApp(tap: TestTap): Promise<{ app: TestApp; baseUrl: string }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort()
    const baseUrl = `http://127.0.0.1:${port}`
    // On the files: the docs' command-line examples open the same log from another process.
    const app = await buildApp(tap, { publicUrl: baseUrl, store: 'sqlite' })
    try {
      await app.app.listen({ port, host: '127.0.0.1' })
      return { app, baseUrl }
    } catch (error) {
      // Another process took the port between the probe and listen: try another.
      if (attempt >= 3 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    }
  }
}
