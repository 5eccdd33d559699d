;;; init.el --- Emacs 28 + eglot 1.9 (Debian elpa-eglot) set up as the README says.

;; Debian's elpa packages (eglot, markdown-mode) are activated by package.el at start-up.
(require 'eglot)
(require 'markdown-mode)

;; The README's configuration.
(add-to-list 'eglot-server-programs
             `(markdown-mode . (,@PYTHON@ "-m" "planmode" "lsp")))
(add-hook 'markdown-mode-hook #'eglot-ensure)
;; No auto-revert: the server's edits bring an agent's revision into an open plan.

;; Test plumbing: no lock or backup files next to the plan, quiet start-up, polling every
;; second (the default is 5 s), a private server socket to read the editor's state.
(setq create-lockfiles nil make-backup-files nil auto-save-default nil
      inhibit-startup-screen t native-comp-deferred-compilation nil
      native-comp-async-report-warnings-errors nil auto-revert-interval 1)
(setq server-socket-dir @SOCKET_DIR@ server-name "planmode")
(server-start)
(provide 'planmode-test-ready)
