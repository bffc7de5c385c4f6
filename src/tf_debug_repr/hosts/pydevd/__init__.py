"""pydevd's side: the provider pydevd calls (``adapter``), when a debugger client is looking
(``client``), ``TCP_NODELAY`` on pydevd's socket (``socket_tuning``)."""
