import type { Meta, StoryObj } from '@storybook/react-vite'
import { expect, fn } from 'storybook/test'
import { AgentReply } from '../src/chat/reply/agent-reply'
import type { ErrorCode, Message } from '../src/wire/types'
import { failureForCode, RAW_ERROR_TEXT, UNKNOWN_CODE } from '../mocks/faults'
import { covers, expectVerbatim } from './failure-checks'
import { agentReply, localizedMessage, SAMPLE } from './fixtures'

/**
 * Every code a failed agent reply can carry (ERROR_CODES), one story each, named by the code
 * exactly; then the three ways a failure can fall outside the table. Each reply carries what the
 * mock daemon persists for that code (its English sentence and retry classification), so the
 * daemon's sentence is in the data and the story shows it is *not* what the operator reads.
 */
const meta = {
  title: 'Errors/Failed reply by code',
  component: AgentReply,
  args: { message: agentReply(), onRegenerate: fn() },
  render: (args, { globals }) => <AgentReply {...args} message={localizedMessage(args.message, globals.locale)} />,
} satisfies Meta<typeof AgentReply>

export default meta
type Story = StoryObj<typeof meta>

// The client's own stream codes end a reply that had already started writing.
const PARTIAL_CODES: ReadonlySet<ErrorCode> = new Set(['stream_ended', 'stream_lagged'])

/** A failed reply with `code`, as the daemon persists it, worded from the table in both languages. */
function failedWith(code: ErrorCode): Story {
  const failure = failureForCode(code)
  const message: Message = agentReply({
    content: PARTIAL_CODES.has(code) ? SAMPLE.partial.en : '',
    status: 'failed',
    error: { code: failure.code, message: failure.message },
    ...(failure.retry ? { retry: failure.retry } : {}),
  })
  return {
    name: code,
    args: { message },
    parameters: covers('error', code),
    play: async ({ canvas }) => {
      // The code is in small print for support, and the daemon's English sentence is not shown.
      await expect(canvas.getByText(code, { exact: false })).toBeInTheDocument()
      await expect(canvas.queryByText(failure.message)).toBeNull()
    },
  }
}

export const AnswerEmpty: Story = failedWith('answer_empty')
export const AnswerToolText: Story = failedWith('answer_tool_text')
export const AnswerToolCall: Story = failedWith('answer_tool_call')
export const AnswerTooLong: Story = failedWith('answer_too_long')
export const AnswerFailed: Story = failedWith('answer_failed')
export const AnswerNotSaved: Story = failedWith('answer_not_saved')
export const SearchFailed: Story = failedWith('search_failed')
export const StreamEnded: Story = failedWith('stream_ended')
export const StreamLagged: Story = failedWith('stream_lagged')
export const ModelOutOfCredit: Story = failedWith('model_out_of_credit')
export const ModelRateLimited: Story = failedWith('model_rate_limited')
export const ModelUnavailable: Story = failedWith('model_unavailable')
export const ModelUnreachable: Story = failedWith('model_unreachable')
export const ModelRejected: Story = failedWith('model_rejected')
export const ContextOverflow: Story = failedWith('context_overflow')
export const CredentialsUnresolved: Story = failedWith('credentials_unresolved')
export const SpendLimitExceeded: Story = failedWith('spend_limit_exceeded')
export const QuotaExhausted: Story = failedWith('quota_exhausted')

// A code without a story fails `tsc` here (and the story suite at run time).
const _everyErrorCode = {
  answer_empty: AnswerEmpty,
  answer_tool_text: AnswerToolText,
  answer_tool_call: AnswerToolCall,
  answer_too_long: AnswerTooLong,
  answer_failed: AnswerFailed,
  answer_not_saved: AnswerNotSaved,
  search_failed: SearchFailed,
  stream_ended: StreamEnded,
  stream_lagged: StreamLagged,
  model_out_of_credit: ModelOutOfCredit,
  model_rate_limited: ModelRateLimited,
  model_unavailable: ModelUnavailable,
  model_unreachable: ModelUnreachable,
  model_rejected: ModelRejected,
  context_overflow: ContextOverflow,
  credentials_unresolved: CredentialsUnresolved,
  spend_limit_exceeded: SpendLimitExceeded,
  quota_exhausted: QuotaExhausted,
} satisfies Record<ErrorCode, Story>

const unknownSentence = 'The flux capacitor is depleted; the run cannot go on.'

/** A code from a newer daemon: the daemon's own sentence is the best words there are, code beside it. */
export const UnknownCode: Story = {
  name: 'Unknown code (daemon sentence kept)',
  args: { message: agentReply({ content: SAMPLE.partial.en, status: 'failed', error: { code: UNKNOWN_CODE, message: unknownSentence } }) },
  play: async ({ canvas, globals }) => {
    await expectVerbatim(canvas.getByText(unknownSentence), globals.locale)
    await expect(canvas.getByText(UNKNOWN_CODE, { exact: false })).toBeInTheDocument()
  },
}

/** An older daemon's plain-text error frame: shown as it came, with no code line. */
export const RawText: Story = {
  name: 'Raw plain text',
  args: { message: agentReply({ content: SAMPLE.partial.en, status: 'failed', error: { code: '', message: RAW_ERROR_TEXT } }) },
  play: async ({ canvas, globals }) => {
    await expectVerbatim(canvas.getByText(RAW_ERROR_TEXT), globals.locale)
  },
}

/** Failed with nothing to go on: the generic sentence. */
export const NoError: Story = {
  name: 'Nothing at all',
  args: { message: agentReply({ content: '', status: 'failed' }) },
}
