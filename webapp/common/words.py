"""Small words of the messages people read: the article before a word."""

# a uuid, a uri: a vowel letter, a consonant sound
_SOUNDED_AS_YOU = ("uu", "uri", "url", "uni", "us", "eu", "one")


def with_article(word: str) -> str:
    """Return the word after its indefinite article.

    `an email`, `a date-time`, `a uuid`."""
    low = word.lower()
    vowel = low[:1] in ("a", "e", "i", "o", "u") and not low.startswith(_SOUNDED_AS_YOU)
    return ("an " if vowel else "a ") + word
