"""metalogic.memory"""
