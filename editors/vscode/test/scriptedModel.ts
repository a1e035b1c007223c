// A scripted OpenAI-compatible endpoint for the extension's tests: it
// answers POST /v1/chat/completions with the answer (or the error status)
// the test sets, and records every request.
import * as http from 'node:http';
import { AddressInfo } from 'node:net';

export interface ModelRequest {
  headers: http.IncomingHttpHeaders;
  body: any;
}

export class ScriptedModel {
  /** The assistant message of every answer. */
  answer = '';
  /** An HTTP status other than 200 answers with an OpenAI-style error. */
  status = 200;
  /** Waited before answering. */
  delayMs = 0;
  requests: ModelRequest[] = [];
  url = '';
  private server = http.createServer((req, res) => this.handle(req, res));

  constructor(answer = '') {
    this.answer = answer;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        res.writeHead(400).end();
        return;
      }
      this.requests.push({ headers: req.headers, body });
      setTimeout(() => this.answerWith(res, body), this.delayMs);
    });
  }

  private answerWith(res: http.ServerResponse, body: any): void {
    if (this.status !== 200) {
      res.writeHead(this.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'scripted failure', type: 'server_error' } }));
      return;
    }
    // Streaming requests get plain JSON as well: the server falls back.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${this.requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: this.answer }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
      }),
    );
  }
}
