from enum import StrEnum


class UsersGetPassportFormat(StrEnum):
    NATIVE = "native"
    SOZOGRAPH = "sozograph"

    def __str__(self) -> str:
        return str(self.value)
