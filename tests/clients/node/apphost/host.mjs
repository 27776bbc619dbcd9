/*
 * A real MCP Apps host for the tests: the host side of @modelcontextprotocol/ext-apps
 * (AppBridge + PostMessageTransport) over a real MCP client (@modelcontextprotocol/client),
 * connected to the real amicus-mcp server over stdio through the test's relay (this page
 * posts JSON-RPC messages to /send and reads the server's through the /events stream).
 *
 * Like a chat host, it calls a tool, and when the tool names a `ui://` resource it reads
 * that resource, renders it in a sandboxed iframe (scripts only, opaque origin, the
 * resource's declared CSP applied), and hands the view the tool's input and result through
 * the bridge. The view's own tools/call requests go through the bridge to the server.
 */
import { Client } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';

class RelayTransport {
  async start() {
    this.events = new EventSource('/events');
    await new Promise((resolve, reject) => {
      this.events.addEventListener('open', resolve, { once: true });
      this.events.addEventListener('error', reject, { once: true });
    });
    this.events.addEventListener('message', (event) => this.onmessage?.(JSON.parse(event.data)));
  }

  async send(message) {
    const response = await fetch('/send', { method: 'POST', body: JSON.stringify(message) });
    if (!response.ok) throw new Error('relay refused a message: ' + response.status);
  }

  async close() {
    this.events?.close();
    this.onclose?.();
  }
}

/** The CSP a host derives from the resource's `_meta.ui.csp` (as the ext-apps sandbox does):
 * nothing external unless declared. */
function hostPolicy(csp) {
  const list = (domains) => (domains && domains.length ? ' ' + domains.join(' ') : '');
  const resources = list(csp?.resourceDomains);
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'" + resources,
    "style-src 'unsafe-inline'" + resources,
    "img-src data:" + resources,
    "font-src" + (resources || " 'none'"),
    "connect-src" + (list(csp?.connectDomains) || " 'none'"),
    "frame-src" + (list(csp?.frameDomains) || " 'none'"),
    "base-uri" + (list(csp?.baseUriDomains) || " 'none'"),
  ].join('; ');
}

function withPolicy(html, csp) {
  const meta = '<meta http-equiv="Content-Security-Policy" content="' + hostPolicy(csp) + '">';
  return html.replace(/<head>/i, '<head>' + meta);
}

const host = {
  client: null,
  tools: [],
  views: 0,
  pwned: [], // messages a hostile script would post to the host; none may ever arrive
  log: [],

  async connect(clientInfo, apps = true) {
    const capabilities = apps ? { extensions: { [UI]: { mimeTypes: [MIME] } } } : {};
    this.client = new Client(clientInfo, { capabilities });
    await this.client.connect(new RelayTransport());
    this.tools = (await this.client.listTools()).tools;
    return { tools: this.tools, capabilities: this.client.getServerCapabilities() };
  },

  /** Call a tool as a chat host does; render its view when it has one. With
   * `{serverTools: false}` the host gives the view no server access (as some hosts do). */
  async run(name, args, options = {}) {
    const serverTools = options.serverTools !== false;
    const tool = this.tools.find((t) => t.name === name);
    const uri = tool ? getToolUiResourceUri(tool) : undefined;
    const call = this.client.callTool({ name, arguments: args });
    if (!uri) return { result: await call, frame: null };
    const read = await this.client.readResource({ uri });
    const content = read.contents[0];
    this.views += 1;
    const frame = document.createElement('iframe');
    frame.id = 'view-' + this.views;
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('title', name);
    document.getElementById('views').append(frame);
    const bridge = new AppBridge(this.client, { name: 'amicus-test-host', version: '1.0.0' },
      serverTools ? { serverTools: {}, serverResources: {}, logging: {} } : { logging: {} },
      { hostContext: { theme: 'light', displayMode: 'inline', platform: 'desktop' } });
    bridge.addEventListener('sizechange', ({ height }) => {
      if (height) frame.style.height = height + 'px';
    });
    bridge.addEventListener('initialized', async () => {
      await bridge.sendToolInput({ arguments: args });
      await bridge.sendToolResult(await call);
    });
    await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
    frame.srcdoc = withPolicy(content.text, content._meta?.ui?.csp);
    return { result: await call, frame: frame.id, meta: content._meta ?? null, mimeType: content.mimeType };
  },

  async call(name, args) {
    return this.client.callTool({ name, arguments: args });
  },
};

window.addEventListener('message', (event) => {
  if (event.data && typeof event.data === 'object' && 'pwned' in event.data) host.pwned.push(String(event.data.pwned));
});
window.host = host;
