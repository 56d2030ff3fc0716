/**
 * Parameters a story may give the story suite (tests/stories/stories.test.tsx), under
 * `parameters.storyTest`. Every field has a safe default; a story sets one only with a reason.
 */
export type StoryTestParameters = {
  /**
   * Whether the story shows words of the interface (default true). The suite checks that the
   * Chinese rendering contains Chinese; a story whose only words are the daemon's turns that off.
   */
  uiWords?: boolean
}
