"""infra"""
