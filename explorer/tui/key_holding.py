"""Keys typed after a key that opens a prompt belong to that prompt, however fast they come.

A key reaches the app before the focused widget has handled the keys queued ahead of it, so the keys that
follow a prompt key are held until the prompt has the focus (or the key turned out to open nothing), then
handed over up to the key that closes the prompt (Enter or Escape); the rest wait until it has closed. The
app routes every key through :meth:`KeyHolder.hold` and tells it when a prompt is ready or closed.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events

CLOSING_KEYS = frozenset({"enter", "escape"})


class KeyHolder:
    """Holds keys while a prompt opens; ``post`` types a key anew (the app's ``post_message``)."""

    def __init__(self, prompt_keys: frozenset[str], post: Callable[[events.Key], object]) -> None:
        self.prompt_keys = prompt_keys
        self.post = post
        self._held: list[events.Key] | None = None
        self._released: set[int] = set()

    @property
    def holding(self) -> bool:
        return self._held is not None

    def hold(self, event: events.Key, *, typing: bool) -> bool:
        """Whether ``event`` (not yet handled) is held back; a prompt key starts holding those after it.
        ``typing``: the focus is in a text field, where a prompt key is just a character."""
        if id(event) in self._released:
            self._released.discard(id(event))
            return False
        if self._held is not None:
            self._held.append(event)
            return True
        if event.key in self.prompt_keys and not typing:
            self._held = []
        return False

    def handled(self, event: events.Key, *, prompt_open: bool) -> None:
        """``event`` bubbled back to the app: a prompt key that opened nothing lets the held keys go."""
        if event.key in self.prompt_keys and self._held is not None and not prompt_open:
            self.closed()

    def ready(self) -> None:
        """The prompt has the focus (or kept it after refusing a value): hand it the held keys up to a closing one."""
        held = self._held or []
        batch: list[events.Key] = []
        while held:
            key = held.pop(0)
            batch.append(key)
            if key.key in CLOSING_KEYS:
                break
        for key in batch:
            copy = events.Key(key.key, key.character)
            self._released.add(id(copy))
            self.post(copy)
        if not held and not (batch and batch[-1].key in CLOSING_KEYS):
            # No closing key was handed over: the prompt keeps the focus, so the keys typed from now on go straight
            # to it (held, they would wait for a PromptReady that never comes: a terminal's second chunk was lost).
            self._held = None

    def closed(self) -> None:
        """The prompt closed: type the held keys anew, as if just pressed (one may open the next prompt)."""
        held, self._held = self._held or [], None
        for key in held:
            self.post(events.Key(key.key, key.character))
