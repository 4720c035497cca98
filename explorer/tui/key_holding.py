"""Keys typed after a key that opens a prompt belong to that prompt, however fast they come.

A key reaches the app before the focused widget has handled the keys queued ahead of it, so the keys that
follow a prompt key are held until the prompt has the focus (or the key turned out to open nothing), then
handed over up to the key that closes the prompt (Enter or Escape); the rest wait until it has closed. The
app routes every key through :meth:`KeyHolder.hold` and tells it when a prompt is ready or closed.

Keys are handed over (or typed anew) by posting copies, which join the back of the app's queue: a key the
terminal sent meanwhile is already in the queue ahead of them. So until the last copy has come back, any other
key waits behind the copies, and is handed over (or typed anew) after them, in the order it was typed.

The keys after a closing key typed into an open prompt wait the same way, until the prompt has closed (or refused
the value): sent on, they would reach the closing prompt's field (Escape then ``q`` typed fast lost the ``q``).

An Escape and a key sent faster than the terminal's escape delay (100 ms) come as one key, ``alt+`` that key (the
terminal cannot tell the two apart): the explorer binds no ``alt+`` key, so the holder takes one as the Escape and the
key that were typed, in order (Escape then ``q`` typed fast, or a key storm, still closes what is open and quits).

Holding never outlives the prompt it waits for: a prompt that another screen covered (a held ctrl+p opened the
command palette over it, and the held Enter went to the palette) says it is ready again once back on top, and a key
that comes while a screen other than a prompt covers it lets every held key go, in order, to that screen. So
whatever the keys and their pace, Escape closes what is open and ``q`` quits.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events

CLOSING_KEYS = frozenset({"enter", "escape"})


def escape_and_key(event: events.Key) -> list[events.Key] | None:
    """The Escape and the key that ``event`` stands for when the terminal sent them as one ``alt+`` key (an
    Escape followed within the escape delay by a one-character key: ``alt+q``, ``alt+shift+q`` for ``Q``);
    ``None`` for any other key."""
    character = event.character
    if not event.key.startswith("alt+") or character is None or len(character) != 1 or not character.isprintable():
        return None
    name = event.key.removeprefix("alt+")
    if name == f"shift+{character.lower()}":
        name = character
    if "+" in name:  # ctrl or another modifier as well: not a plain key after an Escape
        return None
    return [events.Key("escape", "\x1b"), events.Key(name, character)]


class KeyHolder:
    """Holds keys while a prompt opens; ``post`` types a key anew (the app's ``post_message``)."""

    def __init__(self, prompt_keys: frozenset[str], post: Callable[[events.Key], object]) -> None:
        self.prompt_keys = prompt_keys
        self.post = post
        self._held: list[events.Key] | None = None
        self._released: set[int] = set()
        """Copies handed to a prompt: they pass untouched."""
        self._replayed: set[int] = set()
        """Copies typed anew once a prompt closed: they count as just pressed (one may open the next prompt)."""
        self._last: int | None = None
        """The last copy posted: until it comes back, other keys queue behind the copies."""
        self._later: list[events.Key] = []
        """Keys that came while copies typed anew were on their way (and no prompt was holding keys)."""

    @property
    def holding(self) -> bool:
        return self._held is not None

    def hold(self, event: events.Key, *, typing: bool, prompt_on_top: bool = False, covered: bool = False) -> bool:
        """Whether ``event`` (not yet handled) is held back; a prompt key starts holding those after it, and so does
        a closing key typed into a prompt. ``typing``: the focus is in a text field, where a prompt key is just a
        character; ``prompt_on_top``: the screen on top is a prompt; ``covered``: the screen on top is neither a
        prompt nor the screen a prompt opens from (the command palette): no prompt can answer now."""
        key = id(event)
        if key in self._released:
            self._released.discard(key)
            if key == self._last:  # the prompt has all it was handed: now what came meanwhile
                self._last = None
                if self._held is not None:
                    self.ready()
                else:  # let go to a screen over the prompt: what came meanwhile is typed anew after it
                    later, self._later = self._later, []
                    self._type_anew(later)
            return False
        if key in self._replayed:
            self._replayed.discard(key)
            held = self._hold_fresh(event, typing=typing, prompt_on_top=prompt_on_top, covered=covered)
            if key == self._last:  # every key typed anew is in: the ones that came meanwhile follow them
                self._last = None
                later, self._later = self._later, []
                if self._held is not None:
                    self._held.extend(later)
                else:
                    self._type_anew(later)
            return held
        parts = escape_and_key(event)
        if parts is not None:  # taken as the two keys typed, in order, as keys held are: typed anew
            if self._held is not None:
                self._held.extend(parts)
                if covered:
                    self.closed()
            elif self._last is not None:
                self._later.extend(parts)
            else:
                self._type_anew(parts)
            return True
        if self._last is not None and self._held is None:
            self._later.append(event)
            return True
        return self._hold_fresh(event, typing=typing, prompt_on_top=prompt_on_top, covered=covered)

    def _hold_fresh(self, event: events.Key, *, typing: bool, prompt_on_top: bool, covered: bool) -> bool:
        if self._held is not None:
            self._held.append(event)
            if covered:  # the prompt is under another screen, which takes the keys: all of them, in order
                self.closed()
            return True
        if (event.key in self.prompt_keys and not typing) or (event.key in CLOSING_KEYS and prompt_on_top):
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
        copies = [events.Key(key.key, key.character) for key in batch]
        self._released.update(id(copy) for copy in copies)
        for copy in copies:
            self.post(copy)
        if batch and batch[-1].key in CLOSING_KEYS:
            return  # the prompt closes (PromptClosed) or refuses the value (PromptReady again)
        if copies:
            self._last = id(copies[-1])  # keys that come before it are held, and handed over once it is in
        else:
            # Nothing more is held and no closing key was handed over: the prompt keeps the focus, so the keys
            # typed from now on go straight to it (held, they would wait for a PromptReady that never comes).
            self._held = None

    def closed(self) -> None:
        """The prompt closed: type the held keys anew, as if just pressed (one may open the next prompt)."""
        held, self._held = self._held or [], None
        self._last = None
        self._type_anew(held)

    def _type_anew(self, keys: list[events.Key]) -> None:
        copies = [events.Key(key.key, key.character) for key in keys]
        self._replayed.update(id(copy) for copy in copies)
        for copy in copies:
            self.post(copy)
        if copies:
            self._last = id(copies[-1])
