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

/** The docs server's Facebook app: `<FACEBOOK_VERIFY_TOKEN>` in the examples. */
export const DOCS_FACEBOOK_ENV = { FACEBOOK_APP_SECRET: 'docs-app-secret-0123456789', FACEBOOK_VERIFY_TOKEN: 'docs-verify-token-0123', FACEBOOK_GRAPH_URL: 'http://127.0.0.1:9' } as const

/** `<PAGE_TOKEN>` in the examples: a Facebook page access token, sealed on connect like a real one. */
export const DOCS_PAGE_TOKEN = 'EAADocsPageAccessToken0123456789'

export async function listeningApp(tap: TestTap): Promise<{ app: TestApp; baseUrl: string }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort()
    const baseUrl = `http://127.0.0.1:${port}`
    // On the files: the docs' command-line examples open the same log from another process.
    // Facebook Lead Ads set up, so its page's subscription check runs (its Graph API is never reached).
    const app = await buildApp(tap, { publicUrl: baseUrl, store: 'sqlite', env: { LEADLINE_SIMULATED_DELAY_MS: '20', ...DOCS_FACEBOOK_ENV } })
    try {
      await app.app.listen({ port, host: '127.0.0.1' })
      return { app, baseUrl }
    } catch (error) {
      // Another process took the port between the probe and listen: try another.
      if (attempt >= 3 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    }
  }
}
