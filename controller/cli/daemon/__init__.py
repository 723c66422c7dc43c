"""The daemon, in one place: ``table-controller run`` (:mod:`.run`: the :class:`Daemon`
built, started and run), its components' lifecycle (:mod:`.lifecycle`), systemd's
notifications, status line and watchdog (:mod:`.health`), the journal failing and back
(:mod:`.journal_guard`) and the lock that keeps a second daemon off its journal
(:mod:`.lock`, which ``tablectl status``, the display and the feed read).
"""
