/** `leadline serve`: the HTTP service, until SIGTERM/SIGINT. */
import { serve } from '../../http/server.ts'
import { config, parse, type Io } from '../cli-io.ts'

export async function serveCommand(args: string[], io: Io): Promise<void> {
  parse(args, {})
  await serve(config(io))
  // Keep running: the server's signal handlers end the process.
  await new Promise<never>(() => {})
}
