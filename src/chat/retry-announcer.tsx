/**
 * A polite live region for the retry scheduler: it speaks when a retry is armed, paused until a
 * time, failed again or cancelled, never on each tick of the countdown.
 */
export function RetryAnnouncer({ announcement }: { announcement: string }) {
  return (
    <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
      {announcement}
    </div>
  )
}
