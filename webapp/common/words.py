"""Small words of the messages people read.

The article before a word, a count with its noun."""

# a uuid, a uri: a vowel letter, a consonant sound
_SOUNDED_AS_YOU = ("uu", "uri", "url", "uni", "us", "eu", "one")


def with_article(word: str) -> str:
    """Return the word after its indefinite article.

    `an email`, `a date-time`, `a uuid`."""
    low = word.lower()
    vowel = low[:1] in ("a", "e", "i", "o", "u") and not low.startswith(_SOUNDED_AS_YOU)
    return ("an " if vowel else "a ") + word


# nouns whose plural is not the noun and an s
_PLURALS = {"info": "info", "warning or error": "warnings or errors", "body": "bodies"}


def counted(n: int, noun: str) -> str:
    """Return a count with its noun, singular or plural.

    `1 warning`, `2 warnings`, `0 errors`, `2 info`."""
    return f"{n} {noun if n == 1 else _PLURALS.get(noun, noun + 's')}"
