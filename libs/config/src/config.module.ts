import { Global, Module, type DynamicModule } from '@nestjs/common';
import { AppConfig } from './app.config.js';

@Global()
@Module({})
export class ConfigModule {
  /** The config is loaded (and validated) once by the bootstrap, then provided as a value. */
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: AppConfig, useValue: config }],
      exports: [AppConfig],
    };
  }
}
