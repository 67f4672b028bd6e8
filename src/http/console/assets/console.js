// The console works without this script; it adds copy buttons and confirmations. Loaded as a
// same-origin file because the Content-Security-Policy allows no inline script.
'use strict'

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null
  if (!button) return
  const source = document.getElementById(button.getAttribute('data-copy'))
  if (!source) return
  const text = 'value' in source ? source.value : source.textContent
  const status = document.getElementById(button.getAttribute('aria-describedby') || '')
  const done = (message) => {
    if (status) status.textContent = message
    const label = button.textContent
    button.textContent = message
    setTimeout(() => { button.textContent = label }, 2000)
  }
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => done('Copied'), () => done('Copy failed: select and copy it'))
  } else {
    done('Select the text and copy it')
  }
})

document.addEventListener('submit', (event) => {
  const form = event.target
  if (!(form instanceof HTMLFormElement)) return
  const question = form.getAttribute('data-confirm')
  if (question && !window.confirm(question)) event.preventDefault()
})
