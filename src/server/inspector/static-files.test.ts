import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as nodeRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../test-helpers/test-server.js';
import { defaultAssetsRoot, resolveAssetPath } from './static-files.js';
import { inspectorFixture, TOKEN_ALICE } from './test-helpers/inspector-fixture.js';

let parent: string;
let root: string;

beforeAll(() => {
  parent = mkdtempSync(join(tmpdir(), 'orrery-inspector-'));
  root = join(parent, 'inspector');
  mkdirSync(join(root, 'lib'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>inspector</title>');
  writeFileSync(join(root, 'app.js'), 'export {};');
  writeFileSync(join(root, 'style.css'), 'body {}');
  writeFileSync(join(root, 'lib', 'chart.js'), 'export const chart = 1;');
  writeFileSync(join(root, '.env'), 'SECRET=1');
  // Beside the folder: what a traversal would reach.
  writeFileSync(join(parent, 'secret.txt'), 'not for the web');
});

afterAll(() => {
  rmSync(parent, { recursive: true, force: true });
});

describe('the inspector page', () => {
  it('serves index.html at / and the folder at /inspector/, with content types and no token', async () => {
    const fixture = inspectorFixture({ tokens: true, inspector: { assetsRoot: root } });
    const cases: Array<[string, string, string]> = [
      ['/', 'text/html; charset=utf-8', '<!doctype html><title>inspector</title>'],
      ['/inspector/', 'text/html; charset=utf-8', '<!doctype html><title>inspector</title>'],
      ['/inspector/app.js', 'text/javascript; charset=utf-8', 'export {};'],
      ['/inspector/style.css', 'text/css; charset=utf-8', 'body {}'],
      ['/inspector/lib/chart.js', 'text/javascript; charset=utf-8', 'export const chart = 1;'],
    ];
    for (const [path, type, text] of cases) {
      const response = await fixture.request(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe(type);
      expect(response.headers.get('cache-control'), path).toBe('no-cache');
      expect(await response.text(), path).toBe(text);
    }
    // The API stays behind the token.
    expect((await fixture.request('/inspector/api/sessions')).status).toBe(401);
    expect((await fixture.request('/inspector/api/sessions', { token: TOKEN_ALICE })).status).toBe(
      200,
    );
  });

  it('answers a revalidation with 304 while the file is unchanged', async () => {
    const fixture = inspectorFixture({ inspector: { assetsRoot: root } });
    const first = await fixture.request('/inspector/app.js');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"/);
    const again = await fixture.request('/inspector/app.js', {
      headers: { 'if-none-match': etag ?? '' },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('serves nothing outside the folder, no dot file, no directory, no API path', async () => {
    const fixture = inspectorFixture({ inspector: { assetsRoot: root } });
    const refused = [
      '/inspector/.env',
      '/inspector/lib',
      '/inspector/lib/',
      '/inspector/missing.js',
      '/inspector/%2e%2e/secret.txt',
      '/inspector/lib/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/inspector/..%2fsecret.txt',
      '/inspector/..%5csecret.txt',
      '/inspector/%00.js',
      '/inspector/%E0%A4%A',
      '/inspector/api/nothing-here',
    ];
    for (const path of refused) {
      const response = await fixture.request(path);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).not.toContain('not for the web');
    }
  });

  it('refuses a raw ../ sent by a client that does not normalize the path', async () => {
    const server = await startTestServer({ serverOptions: { inspector: { assetsRoot: root } } });
    try {
      const { port } = new URL(server.url);
      for (const path of ['/inspector/../secret.txt', '/inspector/lib/../../secret.txt']) {
        const { status, body } = await rawGet(Number(port), path);
        expect(body, path).not.toContain('not for the web');
        expect(status, path).not.toBe(200);
      }
    } finally {
      await server.close();
    }
  });

  it('resolves only paths inside the root', () => {
    expect(resolveAssetPath(root, 'lib/chart.js')).toBe(join(root, 'lib', 'chart.js'));
    for (const path of ['../secret.txt', 'lib/../../secret.txt', '', 'a//b', '%2e%2e', '.git/x']) {
      expect(resolveAssetPath(root, path), path).toBeUndefined();
    }
  });

  it("finds the package's assets/inspector by default", async () => {
    const fixture = inspectorFixture();
    expect(defaultAssetsRoot()).toMatch(/assets[/\\]inspector[/\\]$/);
    const response = await fixture.request('/');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<html');
  });
});

/** A GET with the path sent as written (fetch would normalize `..`). */
function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = nodeRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += String(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}
