// A small MCP server over stdio, spawned by the tests as a real child process.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createFixtureServer } from './fixture-tools.mjs';

const { server } = createFixtureServer();
if (process.env.FIXTURE_GREETING !== undefined) process.stderr.write(`${process.env.FIXTURE_GREETING}\n`);
await server.connect(new StdioServerTransport());
