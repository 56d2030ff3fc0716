import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from '../../i18n/use-translation'
import { describeFailure, failureFromError } from '../../i18n/describe-failure'
import type { Session } from '../../wire/types'
import { chatKeys } from '../../thread/history'
import { useDeleteSession, useNewSession, useRenameSession, useSessions } from '../api/use-sessions'
import { LazyConfirmDialog } from '../dialogs/lazy-dialogs'
import { sessionLabel } from '../../thread/session-label'
import { RefusedNotice } from '../reply/refused-notice'
import { useChatRuntime } from '../runtime'
import { SessionList } from './session-list'
import { successorOf } from '../../thread/session-order'
import { COMPOSER_INPUT_ID } from '../dom-ids'

export type SessionsPanelProps = {
  currentId: string | undefined
  onSelect: (id: string | undefined) => void
  /** A session was just created here (or the blank one in view opened again): its view should take the focus for typing. */
  onCreated?: (id: string) => void
  /** Sessions with events the operator has not seen, and what they ask (see SessionList). */
  marks?: ReadonlyMap<string, 'needsYou' | 'news'>
}

/** The session list bound to the daemon: load, create (and open), switch, rename, export, delete. */
export function SessionsPanel({ currentId, onSelect, onCreated, marks }: SessionsPanelProps) {
  const { t, i18n } = useTranslation()
  const runtime = useChatRuntime()
  const queryClient = useQueryClient()
  const sessions = useSessions()
  const { start, create } = useNewSession(currentId, (id) => {
    onSelect(id)
    onCreated?.(id)
  })
  const rename = useRenameSession()
  const remove = useDeleteSession()
  const [renaming, setRenaming] = useState<{ sessionId: string; error?: unknown }>()
  const [deleting, setDeleting] = useState<Session>()
  // Errors stay values until shown, so a language switch rewords them.
  const [actionError, setActionError] = useState<{ template: 'sessionMenu.deleteFailed' | 'sessionMenu.exportFailed' | 'sessionMenu.renameFailed'; error: unknown }>()
  const failure = create.error ?? sessions.error

  const onExport = async (session: Session, format: 'md' | 'json') => {
    try {
      // Export is rare: its code loads when it is asked for, not with the page.
      const [{ download, exportFileName, sessionToJson, sessionToMarkdown }, messages] = await Promise.all([
        import('../../thread/export'),
        // The whole session: the transcript holds only the pages around its view.
        runtime.client.listMessages(session.id),
      ])
      const at = runtime.clock.now()
      const name = exportFileName(sessionLabel(t, session), at, format)
      if (format === 'md') download(name, sessionToMarkdown(t, session, messages, at, i18n.language), 'text/markdown;charset=utf-8')
      else download(name, sessionToJson(session, messages, at), 'application/json')
    } catch (error) {
      setActionError({ template: 'sessionMenu.exportFailed', error })
    }
  }

  const linkOf = (session: Session | undefined) =>
    session ? document.querySelector<HTMLElement>(`.sessions a[href="/sessions/${CSS.escape(encodeURIComponent(session.id))}"]`) : null

  const confirmDelete = (session: Session) => {
    setDeleting(undefined)
    // Deleting the open session opens the next one (or the one before it at the end of the list).
    const next = successorOf(sessions.data ?? [], session.id)
    remove.mutate(session.id, {
      onSuccess: () => {
        if (session.id === currentId) onSelect(next?.id)
      },
      onError: (error) => setActionError({ template: 'sessionMenu.deleteFailed', error }),
    })
  }

  return (
    <>
      <SessionList
        sessions={sessions.data}
        currentId={currentId}
        marks={marks}
        onSelect={onSelect}
        onCreate={start}
        creating={create.isPending}
        error={failure ? `${create.error ? t('sessions.createFailed') : t('sessions.loadFailed')} ${describeFailure(t, failureFromError(failure)).text}` : undefined}
        onRetry={() => {
          create.reset()
          void sessions.refetch()
        }}
        actions={{
          onRename: (session, title) =>
            rename.mutate(
              { sessionId: session.id, title },
              {
                onSuccess: () => setRenaming(undefined),
                onError: (error) => {
                  // A session gone meanwhile (deleted in another tab) has no field left to word it under.
                  if (queryClient.getQueryData<Session[]>(chatKeys.sessions)?.some((s) => s.id === session.id)) {
                    setRenaming({ sessionId: session.id, error })
                    return
                  }
                  setRenaming(undefined)
                  setActionError({ template: 'sessionMenu.renameFailed', error })
                  document.getElementById(COMPOSER_INPUT_ID)?.focus()
                },
              },
            ),
          onExport: (session, format) => void onExport(session, format),
          onDelete: (session) => {
            setActionError(undefined)
            setDeleting(session)
          },
        }}
        renaming={
          renaming
            ? { sessionId: renaming.sessionId, error: renaming.error === undefined ? undefined : <RefusedNotice error={renaming.error} template="sessionMenu.renameFailed" /> }
            : undefined
        }
        onRenameStart={(sessionId) => setRenaming({ sessionId })}
        onRenameCancel={() => setRenaming(undefined)}
      />
      {actionError ? (
        <p className="failure failure__text sessions__action-error" role="alert">
          <RefusedNotice error={actionError.error} template={actionError.template} />
        </p>
      ) : null}
      {deleting ? (
        <LazyConfirmDialog
          title={t('sessionMenu.deleteTitle', { title: sessionLabel(t, deleting) })}
          body={t('sessionMenu.deleteBody')}
          confirmLabel={t('sessionMenu.deleteConfirm')}
          cancelLabel={t('sessionMenu.deleteKeep')}
          onConfirm={() => confirmDelete(deleting)}
          onCancel={() => setDeleting(undefined)}
          fallbackFocus={() => linkOf(successorOf(sessions.data ?? [], deleting.id)) ?? document.getElementById(COMPOSER_INPUT_ID)}
        />
      ) : null}
    </>
  )
}
