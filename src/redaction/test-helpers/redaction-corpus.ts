/**
 * Realistic samples for the redaction corpus test: positives (each secret must be gone from the
 * redacted value) and look-alike negatives (must come back unchanged). Text samples go through
 * `redactText`, object samples (tool results, call arguments) through `redactJson`.
 */

export interface PositiveSample {
  name: string;
  input: string | Record<string, unknown>;
  /** Substrings that must not survive redaction. */
  secrets: string[];
}

export interface NegativeSample {
  name: string;
  input: string | Record<string, unknown>;
}

const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAv1xQ3dJk2oBfF0s8Zr3yBgk7Ws6nT9bqj4V7QyZ2Lw0H5cPa',
  'q3Xk9Rt2Yd8Vb1Nw6Ms4Lc7Jz0Ah5Gf2Ke9Ui3Op8Qr1Tw6Ey4Iu7Yo0Pa3Sd5Fg',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

export const positiveSamples: PositiveSample[] = [
  {
    name: 'email in prose',
    input: 'Contact jane.doe+ops@example.co.uk for access',
    secrets: ['jane.doe+ops@example.co.uk'],
  },
  {
    name: 'email in JSON',
    input: { customer: { email: 'bob@corp.example.com' } },
    secrets: ['bob@corp.example.com'],
  },
  {
    name: 'AWS access key id',
    input: 'export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE',
    secrets: ['AKIAIOSFODNN7EXAMPLE'],
  },
  {
    name: 'AWS secret key (env line)',
    input: 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    secrets: ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  },
  {
    name: 'AWS secret key (bare, in a table)',
    input:
      'AccessKeyId AKIAI44QH8DHBEXAMPLE   SecretAccessKey je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY',
    secrets: ['AKIAI44QH8DHBEXAMPLE', 'je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY'],
  },
  {
    name: 'AWS credentials (STS JSON)',
    input: {
      Credentials: {
        AccessKeyId: 'ASIAXYZ1234567890ABC',
        SecretAccessKey: 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876',
      },
    },
    secrets: ['ASIAXYZ1234567890ABC', 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876'],
  },
  {
    name: 'Stripe secret key',
    input: 'stripe.api_key = "sk_live_51H8xQ2eZvKYlo2C0aBcDeFgHiJkLmNoPq"',
    secrets: ['sk_live_51H8xQ2eZvKYlo2C0aBcDeFgHiJkLmNoPq'],
  },
  {
    name: 'Stripe restricted key',
    input: 'using rk_live_51H8xQ2eZvKYlo2CabcdefGHIJ for refunds',
    secrets: ['rk_live_51H8xQ2eZvKYlo2CabcdefGHIJ'],
  },
  {
    name: 'OpenAI key',
    input: 'OPENAI_API_KEY=sk-proj-4f9c2b7d1e8a6f3c5b9d2e7a',
    secrets: ['sk-proj-4f9c2b7d1e8a6f3c5b9d2e7a'],
  },
  {
    name: 'Anthropic key',
    input: 'key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx-yz0123456789',
    secrets: ['sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx-yz0123456789'],
  },
  {
    name: 'Google API key',
    input: `url ?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY`,
    secrets: ['AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY'],
  },
  {
    name: 'Google OAuth token',
    input: 'access token ya29.a0AfH6SMBx3-kH9wQ2ZrT7yP1vC4nL8mD6',
    secrets: ['ya29.a0AfH6SMBx3-kH9wQ2ZrT7yP1vC4nL8mD6'],
  },
  {
    name: 'GitHub token',
    input: 'git clone https://x:ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8@github.com/o/r',
    secrets: ['ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'],
  },
  {
    name: 'Slack token',
    input: 'SLACK_BOT_TOKEN xoxb-2048-4096-AbCdEfGhIjKl',
    secrets: ['xoxb-2048-4096-AbCdEfGhIjKl'],
  },
  {
    name: 'JWT',
    input: `session ${JWT}`,
    secrets: [JWT.split('.')[1] as string, JWT.split('.')[2] as string],
  },
  {
    name: 'Bearer header',
    input: 'Authorization: Bearer 3f9a1c7e5b2d8f4a6c0e9b1d',
    secrets: ['3f9a1c7e5b2d8f4a6c0e9b1d'],
  },
  {
    name: 'Basic header',
    input: 'authorization: Basic dXNlcjpodW50ZXIy',
    secrets: ['dXNlcjpodW50ZXIy'],
  },
  { name: 'api-key header', input: 'x-api-key: 7d3b9f1e2a', secrets: ['7d3b9f1e2a'] },
  {
    name: 'password field (JSON text)',
    input: '{"user": "bob", "password": "correct horse battery staple"}',
    secrets: ['correct horse battery staple'],
  },
  {
    name: 'password field (object)',
    input: { user: 'bob', password: 'hunter2' },
    secrets: ['hunter2'],
  },
  {
    name: 'apiKey field (object)',
    input: { service: 'maps', apiKey: 'k-39fj2k' },
    secrets: ['k-39fj2k'],
  },
  {
    name: 'client_secret field',
    input: { client_id: 'web', client_secret: 'Zk29-sd8_a' },
    secrets: ['Zk29-sd8_a'],
  },
  {
    name: 'private_key field',
    input: { private_key: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC' },
    secrets: ['MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'],
  },
  { name: 'token as a number', input: { token: 839201 }, secrets: ['839201'] },
  { name: 'env password', input: 'DB_PASSWORD=s3cr3t!pass\nDB_HOST=db', secrets: ['s3cr3t!pass'] },
  { name: 'YAML secret', input: "secret: 'open sesame'", secrets: ['open sesame'] },
  {
    name: 'PEM private key',
    input: `key file:\n${PEM}\nend`,
    secrets: ['MIIEowIBAAKCAQEAv1xQ3dJk2oBfF0s8', 'q3Xk9Rt2Yd8Vb1Nw6Ms4'],
  },
  {
    name: 'PEM key cut short',
    input: PEM.slice(0, 120),
    secrets: ['MIIEowIBAAKCAQEAv1xQ3dJk2oBfF0s8'],
  },
  {
    name: 'URL credentials',
    input: 'base url http://admin:s3cr3tP@ss@llm.internal:8080/v1',
    secrets: ['s3cr3tP@ss'],
  },
  {
    name: 'URL token parameter',
    input: 'GET /callback?code=1&access_token=abc123def456&state=x',
    secrets: ['abc123def456'],
  },
  {
    name: 'card with spaces',
    input: 'card 4111 1111 1111 1111 exp 12/27',
    secrets: ['4111 1111 1111 1111'],
  },
  {
    name: 'card with dashes',
    input: 'Mastercard 5555-5555-5555-4444',
    secrets: ['5555-5555-5555-4444'],
  },
  {
    name: 'card with dots',
    input: 'paid with 4012.8888.8888.1881',
    secrets: ['4012.8888.8888.1881'],
  },
  { name: 'Amex 4-6-5', input: 'amex 3782 822463 10005', secrets: ['822463'] },
  {
    name: 'card as a JSON number',
    input: { payment: { pan: 6011111111111117, amount: 42.5 } },
    secrets: ['6011111111111117'],
  },
  { name: 'card digits in text', input: 'number=2221000000000009;', secrets: ['2221000000000009'] },
  { name: 'phone, formatted US', input: 'call +1 (415) 555-0132 today', secrets: ['555-0132'] },
  { name: 'phone, dashes', input: 'cell 415-555-0132', secrets: ['415-555-0132'] },
  { name: 'phone, UK', input: 'office +44 20 7946 0958', secrets: ['7946 0958'] },
  {
    name: 'phone, bare 10 digits after a phone word',
    input: 'Phone: 4155550132',
    secrets: ['4155550132'],
  },
  {
    name: 'phone, bare in JSON',
    input: { name: 'Ann', phone: '4155550132' },
    secrets: ['4155550132'],
  },
  {
    name: 'phone, bare number under a phone key',
    input: { mobile: 4155550132 },
    secrets: ['4155550132'],
  },
  {
    name: 'IBAN compact',
    input: 'IBAN DE89370400440532013000',
    secrets: ['DE89370400440532013000'],
  },
  {
    name: 'IBAN grouped',
    input: 'pay to GB82 WEST 1234 5698 7654 32 today',
    secrets: ['GB82 WEST 1234 5698 7654 32'],
  },
  {
    name: 'IBAN in JSON',
    input: { beneficiary: { iban: 'FR1420041010050500013M02606' } },
    secrets: ['FR1420041010050500013M02606'],
  },
  { name: 'IPv4', input: 'login from 203.0.113.42 failed', secrets: ['203.0.113.42'] },
  { name: 'private IPv4 with port', input: 'connect to 10.12.0.7:5432', secrets: ['10.12.0.7'] },
  {
    name: 'IPv6',
    input: 'client 2001:db8:85a3::8a2e:370:7334 connected',
    secrets: ['2001:db8:85a3::8a2e:370:7334'],
  },
  { name: 'SSN', input: 'SSN 536-22-1234 on file', secrets: ['536-22-1234'] },
  {
    name: 'model call arguments',
    input: {
      query: 'reset password for ann@example.org',
      password: 'Tr0ub4dor&3',
      card: '4111111111111111',
    },
    secrets: ['ann@example.org', 'Tr0ub4dor&3', '4111111111111111'],
  },
];

export const negativeSamples: NegativeSample[] = [
  { name: 'UUID', input: 'request 550e8400-e29b-41d4-a716-446655440000 done' },
  { name: 'git SHA', input: 'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD)' },
  { name: 'git SHA upper case', input: 'HEAD 9FCEB02D0AE598E95DC970B74767F19372D61AF8' },
  { name: 'short SHA', input: 'fixed in a1b2c3d' },
  {
    name: 'sha256',
    input: 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  },
  { name: 'md5', input: 'md5 d41d8cd98f00b204e9800998ecf8427e' },
  {
    name: 'base64 image',
    input: {
      data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    },
  },
  { name: 'semver', input: 'upgraded react 18.2.0 -> 18.3.1, node v20.11.1' },
  { name: 'Windows build', input: 'version 10.0.19041.1' },
  { name: 'four-part version', input: 'version 1.2.3.4 released' },
  { name: 'ISO timestamp', input: 'at 2024-01-15T10:30:00.123Z' },
  { name: 'date and time', input: 'at 2024-01-15 10:30:00' },
  { name: 'European date', input: 'due 15-01-2024' },
  { name: 'epoch seconds', input: { createdAt: 1700000000, updated: 'ts=1712345678' } },
  { name: 'epoch milliseconds', input: 'timestamp 1700000000123' },
  { name: 'clock time', input: 'started 10:30:00, ended 11:45:59' },
  { name: 'order numbers', input: 'order #48213, ORD-2024-000123, order 4155550132 shipped' },
  { name: 'byte sizes', input: { size: 2147483648, path: '/var/lib/data.bin' } },
  { name: 'prices', input: 'total $1,299.99 (EUR 1199.00), 49.90 per month' },
  { name: 'non-Luhn 16 digits', input: 'ref 4111111111111112' },
  { name: 'non-Luhn grouped', input: 'code 1234 5678 9012 3456' },
  { name: 'invalid IBAN checksum', input: 'IBAN DE89370400440532013001' },
  { name: 'IBAN-like product code', input: 'part AB12 CDEF 3456 7890' },
  { name: 'localhost', input: 'listening on http://localhost:3000 and 127.0.0.1:8080' },
  { name: 'unspecified and loopback', input: 'bind 0.0.0.0:80 and [::1]:443' },
  { name: 'Ollama URL', input: 'ORRERY_OPENAI_COMPATIBLE_BASE_URL=http://localhost:11434/v1' },
  { name: 'URL without credentials', input: 'https://api.example.com/v1/users?page=2&sort=name' },
  { name: 'connection string without password', input: 'postgres://postgres@127.0.0.1:5432/test' },
  {
    name: 'token counts',
    input: 'tokens: 500, maxTokens=4096, "totalTokenCount": 1234, tokenThreshold: 120000',
  },
  {
    name: 'token count object',
    input: { promptTokenCount: 20000, maxOutputTokens: 1024, tokensBefore: 9000 },
  },
  { name: 'secret words in prose', input: 'The password reset email was sent; the token expired.' },
  { name: 'file path', input: '/usr/local/lib/node_modules/npm/bin/npm-cli.js:42:13' },
  { name: 'MAC address', input: 'ether 00:1a:2b:3c:4d:5e' },
  { name: 'C++ scope', input: 'std::vector<int> and std::map' },
  { name: 'digit list', input: '1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16' },
  { name: 'lowercase 40 characters', input: 'id abcdefghijklmnopqrstuvwxyzabcdefghijklmn' },
  { name: 'dotted decimal', input: 'ratio 0.123456789012345' },
  { name: 'percent and ids', input: { id: 'cust-42', progress: '87%', count: 12 } },
  {
    name: 'public key',
    input:
      '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----',
  },
  { name: 'Stripe publishable key', input: 'pk_live_51H8xQ2eZvKYlo2C0aBcDeFgHi' },
];
