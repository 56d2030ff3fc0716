import type { Meta, StoryObj } from '@storybook/react-vite'
import { fn } from 'storybook/test'
import { AgentReply } from '../src/chat/reply/agent-reply'
import { RetryStatus, type RetryStatusView } from '../src/chat/reply/retry-status'
import type { Message, Part } from '../src/wire/types'
import { failureForCode } from '../mocks/faults'
import { agentReply, FIXED_NOW, localizedMessage, SAMPLE } from './fixtures'

/**
 * The tier 2 scheduler as the operator sees it: RetryStatus in the `retry` slot of the reply it
 * belongs to, against the fixed clock (`now` = 14:05:00). A waiting state sits on the failed
 * reply; watching sits on the reply the retry is writing.
 */

const rateLimited = failureForCode('model_rate_limited')
const overloaded = failureForCode('model_unavailable')
const failed = agentReply({ content: '', status: 'failed', error: { code: rateLimited.code, message: rateLimited.message }, retry: rateLimited.retry })
const replyActions = { onStop: fn(), onRegenerate: fn() }
const retrying = agentReply({ id: 'msg_ag2', run_id: 'run_2', content: SAMPLE.partial.en, status: 'streaming' })

/** A `write` tool of the failed reply that ran (done), at the fixed clock. */
function ranWrite(name: string, id: string, path: string): Part {
  return { type: 'tool', tool_call_id: id, name, effect: 'write', input: JSON.stringify({ path }), status: 'done', output: `Wrote ${path}.`, output_bytes: 8 + path.length, started_at: FIXED_NOW - 50_000, ended_at: FIXED_NOW - 49_000 }
}
/** A reply that wrote a file, then failed retryable: regenerating would write it again. */
const failedAfterWrite = agentReply({
  content: '',
  status: 'failed',
  error: { code: overloaded.code, message: overloaded.message },
  retry: overloaded.retry,
  parts: [{ type: 'reasoning', text: 'I will save the summary first.' }, ranWrite('write_file', 'tc_w1', 'notes/summary.md')],
})

/** A waiting view whose deadline is read against the fixed clock. */
function waiting(status: 'armed' | 'paused', attempt: number, deadline: number): RetryStatusView {
  return { status, attempt, deadline }
}

type RetryParameters = {
  /** The reply the status belongs to; the failed one unless the story says otherwise. */
  reply?: Message
  /** Whether the reply offers Regenerate: only once the scheduler has let go of it (as ChatView does). */
  regenerate?: boolean
}

const meta = {
  title: 'Retry/Retry status',
  component: RetryStatus,
  args: { now: FIXED_NOW, onRetryNow: fn(), onCancel: fn(), view: waiting('armed', 1, FIXED_NOW + 2_000) },
  render: (args, { globals, parameters }) => {
    const { reply = failed, regenerate = false } = (parameters.retryStory ?? {}) as RetryParameters
    return (
      <AgentReply
        message={localizedMessage(reply, globals.locale)}
        onStop={replyActions.onStop}
        onRegenerate={regenerate ? replyActions.onRegenerate : undefined}
        retry={<RetryStatus {...args} />}
      />
    )
  },
} satisfies Meta<typeof RetryStatus>

export default meta
type Story = StoryObj<typeof meta>

/** First automatic retry, 2 s after the failure. */
export const ArmedAttempt1: Story = { name: 'Armed, attempt 1 (2 s)', args: { view: waiting('armed', 1, FIXED_NOW + 2_000) } }

/** Fifth attempt: the wait has doubled to 32 s. */
export const ArmedAttempt5: Story = { name: 'Armed, attempt 5 (32 s)', args: { view: waiting('armed', 5, FIXED_NOW + 32_000) } }

/** Ninth attempt: the wait is capped at 300 s. */
export const ArmedAttempt9: Story = { name: 'Armed, attempt 9 (300 s)', args: { view: waiting('armed', 9, FIXED_NOW + 300_000) } }

/** The provider asked to wait past the cap: "retry after HH:MM", today. */
export const PausedToday: Story = {
  name: 'Paused until later today',
  args: { view: waiting('paused', 2, new Date(2026, 10, 30, 14, 55, 0).getTime()) },
}

/** The same, when the time is on another day: the date is shown too. */
export const PausedAnotherDay: Story = {
  name: 'Paused until another day',
  args: { view: waiting('paused', 2, new Date(2026, 11, 1, 9, 30, 0).getTime()) },
}

/**
 * The failed reply ran a `write` tool: a retry would run it again, so nothing counts down and
 * only Retry now regenerates.
 */
export const Held: Story = {
  name: 'Held: a write tool would run again',
  args: { view: { status: 'held', attempt: 1, deadline: FIXED_NOW, rerun: ['write_file'] } },
  parameters: { retryStory: { reply: failedAfterWrite } satisfies RetryParameters },
}

/** The same with two write tools that ran, named in the order they ran. */
export const HeldTwoTools: Story = {
  name: 'Held: two write tools would run again',
  args: { view: { status: 'held', attempt: 1, deadline: FIXED_NOW, rerun: ['write_file', 'edit_file'] } },
  parameters: {
    retryStory: {
      reply: { ...failedAfterWrite, parts: [...(failedAfterWrite.parts ?? []), ranWrite('edit_file', 'tc_w2', 'notes/index.md')] },
    } satisfies RetryParameters,
  },
}

/** The countdown ran out: the regenerate request is on its way. */
export const Dispatching: Story = { args: { view: { status: 'dispatching', attempt: 3, deadline: FIXED_NOW } } }

/** The daemon accepted the retry: the new reply is being written, and the retry can still be cancelled. */
export const Watching: Story = {
  args: { view: { status: 'watching', attempt: 3, deadline: FIXED_NOW } },
  parameters: { retryStory: { reply: retrying } satisfies RetryParameters },
}

/** The operator cancelled: the reply stays failed, and Regenerate is back. */
export const Cancelled: Story = {
  args: { view: { status: 'cancelled', attempt: 3, deadline: FIXED_NOW } },
  parameters: { retryStory: { regenerate: true } satisfies RetryParameters },
}

/** The daemon refused the retry (the anchor is gone): the scheduler stops and says why. */
export const Refused: Story = {
  args: {
    view: {
      status: 'refused',
      attempt: 3,
      deadline: FIXED_NOW,
      refusal: { status: 404, code: 'message_not_found', message: 'The message does not exist in this session.' },
    },
  },
  parameters: { retryStory: { regenerate: true } satisfies RetryParameters },
}
