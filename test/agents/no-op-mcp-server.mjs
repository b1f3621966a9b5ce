// An MCP server that offers editgate's own tools (the same names, descriptions and input schemas, from the
// build) and answers every call at once with one line, reading and writing nothing: what a client's MCP
// machinery costs a tool call, whatever the server does. bench/clients.bench.mjs `floor` runs the agents
// with it in editgate's place. Usage: node test/agents/no-op-mcp-server.mjs ROOT
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { sessionToolList } from '../../dist/mcp/tool-list.js';
import { createEditTools } from '../../dist/tools/index.js';

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: node no-op-mcp-server.mjs ROOT\n');
  process.exit(2);
}
const { definitions } = createEditTools({ root, approve: 'allow' });
const { listed } = sessionToolList(definitions, { mode: 'policy' });
const server = new Server({ name: 'editgate', version: '0.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
server.setRequestHandler(CallToolRequestSchema, (request) => ({
  content: [{ type: 'text', text: `${request.params.name}: done.` }],
}));
await server.connect(new StdioServerTransport());
