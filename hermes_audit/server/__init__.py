"""The resident scan server: an opt-in way to take the interpreter's start-up off each pre-commit run.

A plain ``hermes-audit scan`` spends most of a small run importing Python modules (issue 8, see
``docs/performance.md``). ``hermes-audit server start`` keeps one process with everything imported and the
rules compiled; the ``hermes-audit`` console entry point (:mod:`hermes_audit.server.client`) hands a
``scan`` to it when it is running, and the server forks a copy of itself that runs the same click command
in the client's directory, with the client's environment, arguments and standard streams (passed as file
descriptors), so the output and the exit code are those of an in-process run.

Rooms: :mod:`~hermes_audit.server.wire` (where the socket lives, who may talk to it, the message format),
:mod:`~hermes_audit.server.client` (the console entry point), :mod:`~hermes_audit.server.daemon` (the
server), :mod:`~hermes_audit.server.peer` (whether a client process has exactly the server's rights: the
server runs nothing for a sandboxed process of the same user). Linux only (peer credentials and descriptor passing); elsewhere the entry point always runs the
command in-process.
"""
