;;; init.el --- Emacs 28 + lsp-mode 8 (Debian elpa-lsp-mode) set up as the README says.

;; Debian's elpa packages (lsp-mode, markdown-mode) are activated by package.el at start-up.
(require 'lsp-mode)
(require 'markdown-mode)

;; The README's configuration.
(add-to-list 'lsp-language-id-configuration '(markdown-mode . "markdown"))
(lsp-register-client
 (make-lsp-client :new-connection (lsp-stdio-connection (list @PYTHON@ "-m" "planmode" "lsp"))
                  :activation-fn (lsp-activate-on "markdown")
                  :server-id 'planmode
                  ;; The VS Code client's notifications: nothing to show in Emacs.
                  :notification-handlers
                  (ht ("planMode/didChangeState" #'ignore)
                      ("planMode/approvalRequested" #'ignore)
                      ("planMode/approvalResolved" #'ignore))))
(setq lsp-enabled-clients '(planmode) lsp-auto-guess-root t lsp-lens-enable t)
(add-hook 'markdown-mode-hook #'lsp-deferred)
(global-auto-revert-mode 1)

;; Test plumbing: no lock or backup files next to the plan, quiet start-up, polling every
;; second (the default is 5 s), a private server socket to read the editor's state.
(setq create-lockfiles nil make-backup-files nil auto-save-default nil
      inhibit-startup-screen t native-comp-deferred-compilation nil
      native-comp-async-report-warnings-errors nil auto-revert-interval 1
      lsp-enable-file-watchers nil lsp-headerline-breadcrumb-enable nil
      lsp-modeline-code-actions-enable nil lsp-modeline-diagnostics-enable nil
      lsp-enable-snippet nil lsp-log-io t)
(setq server-socket-dir @SOCKET_DIR@ server-name "planmode")
(server-start)
(provide 'planmode-test-ready)
