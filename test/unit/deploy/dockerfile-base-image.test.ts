// Every image the Dockerfile builds FROM is named by digest, so two builds of one commit start from the
// same bytes, whatever the tag points to by then.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { dockerfileInstructions } from '../../harness/image-layout.ts';

const digest = /@sha256:[0-9a-f]{64}$/;

/** The image each FROM names once its ${ARG}s take their defaults, except FROM an earlier stage. */
function baseImages(dockerfile: string): string[] {
  const args: Record<string, string> = {};
  const stages: string[] = [];
  const images: string[] = [];
  for (const { op, args: rest } of dockerfileInstructions(dockerfile)) {
    if (op === 'ARG') {
      const [, name = '', value = ''] = /^([^=\s]+)(?:=(\S*))?/.exec(rest) ?? [];
      args[name] = value.replace(/^"(.*)"$/, '$1');
    } else if (op === 'FROM') {
      const words = rest.split(' ').filter((w) => !w.startsWith('--platform='));
      const image = words[0]!.replace(/\$\{?(\w+)\}?/g, (_, name: string) => args[name] ?? '');
      const stage = /^AS$/i.test(words[1] ?? '') ? words[2] : undefined;
      if (!stages.includes(image)) images.push(image);
      if (stage) stages.push(stage);
    }
  }
  return images;
}

const unpinned = (dockerfile: string) => baseImages(dockerfile).filter((image) => !digest.test(image));
const pin = `sha256:${'0123456789abcdef'.repeat(4)}`;

describe('Dockerfile base images', () => {
  it('finds a FROM without a digest, written out or through an ARG default', () => {
    assert.deepEqual(unpinned('FROM node:24-slim\n'), ['node:24-slim']);
    assert.deepEqual(unpinned('ARG IMG=node:24-slim\nFROM ${IMG} AS build\nFROM $IMG\n'), ['node:24-slim', 'node:24-slim']);
    assert.deepEqual(unpinned(`FROM node:24-slim@sha256:${'0'.repeat(63)}\n`), [`node:24-slim@sha256:${'0'.repeat(63)}`]);
    assert.deepEqual(unpinned(`FROM node:24-slim@sha256:${'A'.repeat(64)}\n`), [`node:24-slim@sha256:${'A'.repeat(64)}`]);
  });

  it('accepts a digest of 64 hex characters, and FROM an earlier stage', () => {
    assert.deepEqual(
      unpinned(`ARG IMG=node:24-slim@${pin}\nFROM --platform=linux/amd64 \${IMG} AS deps\nFROM deps\nFROM node@${pin}\n`),
      [],
    );
  });

  it('pins every FROM of the Dockerfile by digest', () => {
    const images = baseImages(readFileSync('Dockerfile', 'utf8'));
    assert.ok(images.length > 0, 'the Dockerfile has no FROM');
    assert.deepEqual(
      images.filter((image) => !digest.test(image)),
      [],
      'name each base image as <tag>@sha256:<64 hex> (docs/how-to/build-image.md)',
    );
  });
});
