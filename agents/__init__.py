"""metalogic.agents"""
