import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect } from 'storybook/test'
import { FailureNotice } from '../src/chat/reply/failure-notice'
import type { RefusalCode } from '../src/wire/types'
import { covers, expectVerbatim } from './failure-checks'

/**
 * Every code a refused request can carry (REFUSAL_CODES), one story each, named by the code
 * exactly, as FailureNotice shows a thrown refusal `{ status, code, message }` (the shape of
 * RefusalError); then an unknown code, a body that is not an envelope, and an empty one.
 */
const meta = {
  title: 'Errors/Refusal by code',
  component: FailureNotice,
} satisfies Meta<typeof FailureNotice>

export default meta
type Story = StoryObj<typeof meta>

/** The status and English sentence a daemon sends with each refusal (shared/design/daemon-wire.md). */
const REFUSALS = {
  invalid_request: [422, 'The message needs a string "content".'],
  session_not_found: [404, 'The session does not exist.'],
  message_duplicate: [409, 'A message with this client_message_id was already sent in this session.'],
  content_empty: [422, 'The message is empty.'],
  content_too_long: [422, 'The message is longer than 32000 characters.'],
  message_not_found: [404, 'The message does not exist in this session.'],
  not_operator_message: [422, 'Only an operator message can be regenerated from.'],
  run_not_found: [404, 'The run does not exist in this session.'],
  unauthorized: [401, 'The request carries no valid token.'],
  internal_error: [500, 'The daemon failed to store the message.'],
  daemon_unavailable: [503, 'The daemon is shutting down.'],
  title_empty: [422, 'The session title is empty.'],
  title_too_long: [422, 'The session title is longer than 200 characters.'],
  tool_call_not_found: [404, 'The tool call does not exist in this run.'],
  decision_conflict: [409, 'The other decision was already taken for this tool.'],
  tool_not_awaiting: [409, 'The tool is not awaiting a decision.'],
} as const satisfies Record<RefusalCode, readonly [number, string]>

/** FailureNotice for a refusal with `code`, worded from the table in both languages. */
function refusedWith(code: RefusalCode): Story {
  const [status, message] = REFUSALS[code]
  return {
    name: code,
    args: { thrown: { status, code, message } },
    parameters: covers('refusal', code),
    play: async ({ canvas }) => {
      await expect(canvas.getByText(code, { exact: false })).toBeInTheDocument()
      await expect(canvas.queryByText(message)).toBeNull()
    },
  }
}

export const InvalidRequest: Story = refusedWith('invalid_request')
export const SessionNotFound: Story = refusedWith('session_not_found')
export const MessageDuplicate: Story = refusedWith('message_duplicate')
export const ContentEmpty: Story = refusedWith('content_empty')
export const ContentTooLong: Story = refusedWith('content_too_long')
export const MessageNotFound: Story = refusedWith('message_not_found')
export const NotOperatorMessage: Story = refusedWith('not_operator_message')
export const RunNotFound: Story = refusedWith('run_not_found')
export const Unauthorized: Story = refusedWith('unauthorized')
export const InternalError: Story = refusedWith('internal_error')
export const DaemonUnavailable: Story = refusedWith('daemon_unavailable')
export const TitleEmpty: Story = refusedWith('title_empty')
export const TitleTooLong: Story = refusedWith('title_too_long')
export const ToolCallNotFound: Story = refusedWith('tool_call_not_found')
export const DecisionConflict: Story = refusedWith('decision_conflict')
export const ToolNotAwaiting: Story = refusedWith('tool_not_awaiting')

// A code without a story fails `tsc` here (and the story suite at run time).
const _everyRefusalCode = {
  invalid_request: InvalidRequest,
  session_not_found: SessionNotFound,
  message_duplicate: MessageDuplicate,
  content_empty: ContentEmpty,
  content_too_long: ContentTooLong,
  message_not_found: MessageNotFound,
  not_operator_message: NotOperatorMessage,
  run_not_found: RunNotFound,
  unauthorized: Unauthorized,
  internal_error: InternalError,
  daemon_unavailable: DaemonUnavailable,
  title_empty: TitleEmpty,
  title_too_long: TitleTooLong,
  tool_call_not_found: ToolCallNotFound,
  decision_conflict: DecisionConflict,
  tool_not_awaiting: ToolNotAwaiting,
} satisfies Record<RefusalCode, Story>

const unknownSentence = 'The daemon is a teapot and will not brew this request.'

/** A refusal code this client has no words for: the daemon's sentence, with the code beside it. */
export const UnknownCode: Story = {
  name: 'Unknown code (daemon sentence kept)',
  args: { thrown: { status: 418, code: 'im_a_teapot', message: unknownSentence } },
  play: async ({ canvas, globals }) => {
    await expectVerbatim(canvas.getByText(unknownSentence), globals.locale)
  },
}

const proxyPage = '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>'

/** A body that is not an envelope (a proxy's error page): its text as it came, as text. */
export const RawText: Story = {
  name: 'Raw plain text',
  args: { thrown: { status: 502, code: '', message: proxyPage } },
  play: async ({ canvas, canvasElement, globals }) => {
    await expectVerbatim(canvas.getByText(proxyPage), globals.locale)
    await expect(canvasElement.querySelector('title, body body')).toBeNull()
  },
}

/** A refusal with an empty body and no code: the generic sentence. */
export const Nothing: Story = {
  name: 'Nothing at all',
  args: { thrown: { status: 500, code: '', message: '' } },
}
