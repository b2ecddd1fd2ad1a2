from enum import StrEnum


class EntityType(StrEnum):
    CONCEPT = "concept"
    ORGANIZATION = "organization"
    OTHER = "other"
    PERSON = "person"
    PLACE = "place"
    PRODUCT = "product"
    PROJECT = "project"
    SKILL = "skill"
    TOOL = "tool"

    def __str__(self) -> str:
        return str(self.value)
