import { describe, expect, it } from 'vitest'
import { openFence } from '../../src/markdown/open-fence'

describe('openFence', () => {
  it.each([
    ['```ts\nconst a = 1\nconst b', { tag: 'ts', code: 'const a = 1\nconst b' }],
    ['```ts\nconst a = 1\n', { tag: 'ts', code: 'const a = 1' }],
    ['```\n', { tag: undefined, code: '' }],
    ['~~~python title="x.py"\nprint(1)', { tag: 'python', code: 'print(1)' }],
    ['````md\n```ts\ninner\n```\n', { tag: 'md', code: '```ts\ninner\n```' }],
    ['  ```sh\n  npm ci\n    indented\nnone', { tag: 'sh', code: 'npm ci\n  indented\nnone' }],
    ['```js\na\n\n\n', { tag: 'js', code: 'a\n\n' }],
    ['```\n~~~\nstill code', { tag: undefined, code: '~~~\nstill code' }],
  ])('reads %j as an open fence', (block, fence) => {
    expect(openFence(block)).toEqual(fence)
  })

  it.each([
    ['a closed fence', '```ts\nconst a = 1\n```\n'],
    ['a fence closed by a longer fence', '```\na\n`````'],
    ['a fence closed by an indented fence', '~~~\na\n   ~~~  '],
    ['no fence at the start', 'Text\n```ts\ncode'],
    ['a fence line not yet ended', '```ts'],
    ['a fence indented four spaces (indented code)', '    ```ts\ncode'],
    ['a backtick in a backtick fence’s info', '``` a`b\ncode'],
    ['two backticks only', '``\ncode'],
  ])('leaves %s to the Markdown parser', (_name, block) => {
    expect(openFence(block)).toBeUndefined()
  })
})
