"""What is not Postgres: the work queue (arq on Redis), request rates and model budgets."""
