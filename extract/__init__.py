"""metalogic.extract"""
