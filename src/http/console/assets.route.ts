/**
 * The console's style sheet and script: same-origin files (the CSP allows nothing else), read once
 * per process and served from memory with a long cache (their URLs carry ASSET_VERSION).
 */
import { readFileSync } from 'node:fs'
import type { FastifyPluginAsync } from 'fastify'
import { projectPath } from '../../config/project-root.ts'
import { sendError } from '../errors.ts'
import { consoleItem } from './console.schema.ts'

const ASSETS: Readonly<Record<string, string>> = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
}

let loaded: Map<string, Buffer> | undefined

function assets(): Map<string, Buffer> {
  loaded ??= new Map(Object.keys(ASSETS).map((name) => [name, readFileSync(projectPath('src', 'http', 'console', 'assets', name))]))
  return loaded
}

export const assetsRoute: FastifyPluginAsync = async (fastify) => {
  const files = assets()
  fastify.get<{ Params: { name: string } }>('/assets/:name', { schema: consoleItem('name') }, (request, reply) => {
    const name = request.params.name
    const body = Object.hasOwn(ASSETS, name) ? files.get(name) : undefined
    if (!body) return sendError(reply, 'not_found', 'there is no such console asset')
    return reply.header('cache-control', 'public, max-age=86400').type(ASSETS[name] as string).send(body)
  })
}
