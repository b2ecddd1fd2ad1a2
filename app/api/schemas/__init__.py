"""Wire schemas: the pydantic request and response models of the routes."""
