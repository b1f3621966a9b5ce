import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolClass } from './tool-class.js';

export interface Classified {
  /** The tool as the server lists it; undefined for a name it does not list. */
  tool?: Tool;
  class: ToolClass;
}

const UNLISTED: ToolClass = {
  kind: 'card',
  basis: 'the server does not list this tool, so editgate knows nothing about it',
};

/**
 * The upstream tools and how each is treated, learnt from tools/list as it passes through (every page) and
 * forgotten when the server says its list changed or is started again. A call to a tool not yet seen
 * makes the catalog read the whole list first.
 */
export class ToolCatalog {
  private readonly known = new Map<string, Classified>();
  private complete = false;

  constructor(
    private readonly classify: (tool: Tool) => ToolClass,
    private readonly listAll: () => Promise<Tool[]>,
  ) {}

  /** One page of tools/list; `last`: no more pages (the catalog now knows every tool). */
  learn(tools: readonly Tool[], last: boolean): void {
    for (const tool of tools) this.known.set(tool.name, { tool, class: this.classify(tool) });
    if (last) this.complete = true;
  }

  invalidate(): void {
    this.known.clear();
    this.complete = false;
  }

  async get(name: string): Promise<Classified> {
    const found = this.known.get(name);
    if (found || this.complete) return found ?? { class: UNLISTED };
    this.invalidate();
    this.learn(await this.listAll(), true);
    return this.known.get(name) ?? { class: UNLISTED };
  }
}
