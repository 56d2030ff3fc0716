/** Ids of the elements other parts of the page move focus to (shortcuts, the skip link, dialogs). */
export const COMPOSER_INPUT_ID = 'composer-input'
